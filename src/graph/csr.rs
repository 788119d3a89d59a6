//! Compressed sparse row adjacency.
//!
//! `Csr<N>` is a graph over nodes `N` (successor lists); `Csr<R, V>` with two index types
//! is a bipartite table (rows `R`, values `V`: a loop's blocks, an SCC's nodes).
//!
//! # Invariants
//! - `starts.len() == num_rows + 1`, `starts[0] == 0`, `starts` is non-decreasing and
//!   `starts[num_rows] == targets.len()`.
//! - for a graph (`R == V`, built by [`Csr::from_edges`]) every target is `< num_rows`.

use super::{DirectedGraph, GraphError, Predecessors, Successors, WithStart};
use crate::idx::Idx;

/// Compressed sparse row adjacency: row `r`'s values are
/// `targets[starts[r]..starts[r + 1]]` (the successors of node `r` in a graph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr<R: Idx = u32, V: Idx = R> {
    /// Offsets into `targets`, one per row plus one (positions, not indices).
    pub(crate) starts: Vec<u32>,
    /// Values (edge targets), grouped by row.
    pub(crate) targets: Vec<V>,
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
    /// # Errors
    /// [`GraphError::EdgeOutOfRange`] if an endpoint is `>= num_nodes`.
    pub fn from_edges(num_nodes: usize, edges: &[(N, N)]) -> Result<Self, GraphError> {
        check_edges(num_nodes, edges)?;
        Ok(Csr::from_edges_in_range(num_nodes, edges))
    }

    /// [`Csr::from_edges`] on edges the caller knows are in range.
    pub(crate) fn from_edges_in_range(num_nodes: usize, edges: &[(N, N)]) -> Self {
        let mut c = Csr::default();
        c.fill_grouped(
            num_nodes,
            edges.iter().copied(),
            &mut Vec::new(),
            Some(num_nodes),
        );
        c
    }

    /// This successor table as a [`CsrGraph`] with the given start node (its
    /// predecessor table is built here).
    pub fn into_graph(self, start: N) -> Result<CsrGraph<N>, GraphError> {
        CsrGraph::from_csr(self, start)
    }

    /// The reverse graph (predecessor lists), each list in increasing source order. A
    /// target out of range (possible only in a table from [`Csr::from_raw`]) is dropped.
    pub fn transpose(&self) -> Self {
        let n = self.num_rows();
        let mut edges = Vec::with_capacity(self.targets.len());
        for s in (0..n).map(N::new) {
            for &t in self.row(s) {
                if t.idx() < n {
                    edges.push((t, s));
                }
            }
        }
        Csr::from_edges_in_range(n, &edges)
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
    /// # Errors
    /// [`GraphError::EdgeOutOfRange`] (the pair as the edge) if a row is `>= num_rows`.
    pub fn group(num_rows: usize, pairs: &[(R, V)]) -> Result<Self, GraphError> {
        if let Some(&(r, v)) = pairs.iter().find(|(r, _)| r.idx() >= num_rows) {
            return Err(GraphError::EdgeOutOfRange {
                source: r.idx(),
                target: v.idx(),
                num_nodes: num_rows,
            });
        }
        Ok(Csr::group_in_range(num_rows, pairs))
    }

    /// [`Csr::group`] on rows the caller knows are in range.
    pub(crate) fn group_in_range(num_rows: usize, pairs: &[(R, V)]) -> Self {
        let mut c = Csr::default();
        c.fill_grouped(num_rows, pairs.iter().copied(), &mut Vec::new(), None);
        c
    }

    /// [`Csr::group`] in place, on rows the caller knows are in range: this table's
    /// buffers are reused and `fill` is scratch, so a table rebuilt over and over (a
    /// dominator tree's children) allocates nothing once warm. The pairs are walked
    /// twice.
    pub(crate) fn regroup<I>(&mut self, num_rows: usize, pairs: I, fill: &mut Vec<u32>)
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

    /// Row offsets: row `r` is `targets()[starts()[r]..starts()[r + 1]]`.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Every row's values, row after row.
    pub fn targets(&self) -> &[V] {
        &self.targets
    }

    /// The offsets and values, taken apart (see [`Csr::from_raw`]).
    pub fn into_raw(self) -> (Vec<u32>, Vec<V>) {
        (self.starts, self.targets)
    }

    /// Row `r`'s values (a node's successors in a graph); empty for a row out of range.
    #[inline]
    pub fn row(&self, r: R) -> &[V] {
        let i = r.idx();
        match (self.starts.get(i), self.starts.get(i.wrapping_add(1))) {
            (Some(&s), Some(&e)) => self.targets.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
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

/// The first edge with an endpoint `>= num_nodes`, as an error.
pub(crate) fn check_edges<N: Idx>(num_nodes: usize, edges: &[(N, N)]) -> Result<(), GraphError> {
    match edges
        .iter()
        .find(|(s, t)| s.idx() >= num_nodes || t.idx() >= num_nodes)
    {
        Some(&(s, t)) => Err(GraphError::EdgeOutOfRange {
            source: s.idx(),
            target: t.idx(),
            num_nodes,
        }),
        None => Ok(()),
    }
}

/// A graph with everything the algorithms ask for: successor CSR, its transpose and a
/// start node, so a host with an edge list runs RPO, dominators, post-dominators,
/// frontiers and SCCs without writing a trait impl.
///
/// # Invariants
/// - `pred == succ.transpose()`; every endpoint is `< num_nodes()`;
/// - `start < num_nodes()`, or the graph is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsrGraph<N: Idx = u32> {
    succ: Csr<N>,
    pred: Csr<N>,
    start: N,
}

impl<N: Idx> Default for CsrGraph<N> {
    fn default() -> Self {
        CsrGraph {
            succ: Csr::from_raw(vec![0], Vec::new()),
            pred: Csr::from_raw(vec![0], Vec::new()),
            start: N::NONE,
        }
    }
}

impl<N: Idx> CsrGraph<N> {
    /// A graph over `num_nodes` nodes with `edges` (kept in order per source) and start
    /// node `start` (ignored when `num_nodes == 0`).
    pub fn from_edges(num_nodes: usize, edges: &[(N, N)], start: N) -> Result<Self, GraphError> {
        Self::from_csr(Csr::from_edges(num_nodes, edges)?, start)
    }

    /// A graph from its successor table and start node.
    pub fn from_csr(succ: Csr<N>, start: N) -> Result<Self, GraphError> {
        let n = succ.num_rows();
        let malformed = succ.starts.len() != n + 1
            || succ.starts.first().is_some_and(|&s| s != 0)
            || succ.starts.windows(2).any(|w| w[0] > w[1])
            || succ
                .starts
                .last()
                .is_some_and(|&e| e as usize != succ.targets.len());
        if malformed {
            return Err(GraphError::MalformedCsr);
        }
        if let Some(&t) = succ.targets.iter().find(|t| t.idx() >= n) {
            return Err(GraphError::EdgeOutOfRange {
                source: succ
                    .rows()
                    .find(|&r| succ.row(r).contains(&t))
                    .map_or(0, |r| r.idx()),
                target: t.idx(),
                num_nodes: n,
            });
        }
        if n > 0 && start.idx() >= n {
            return Err(GraphError::StartOutOfRange {
                start: start.idx(),
                num_nodes: n,
            });
        }
        let pred = succ.transpose();
        let start = if n == 0 { N::NONE } else { start };
        Ok(CsrGraph { succ, pred, start })
    }

    /// Moves the start node.
    pub fn set_start(&mut self, start: N) -> Result<(), GraphError> {
        let n = self.num_nodes();
        if start.idx() >= n {
            return Err(GraphError::StartOutOfRange {
                start: start.idx(),
                num_nodes: n,
            });
        }
        self.start = start;
        Ok(())
    }

    /// The successor table.
    pub fn succ(&self) -> &Csr<N> {
        &self.succ
    }

    /// The predecessor table (sources of each node in increasing order).
    pub fn pred(&self) -> &Csr<N> {
        &self.pred
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.succ.num_edges()
    }

    /// Every edge `(source, target)`, source-major, in stored order.
    pub fn edges(&self) -> impl Iterator<Item = (N, N)> + '_ {
        self.succ
            .rows()
            .flat_map(move |s| self.succ.row(s).iter().map(move |&t| (s, t)))
    }

    /// The reverse graph, started at `start`.
    pub fn reversed(&self, start: N) -> Result<Self, GraphError> {
        Self::from_csr(self.pred.clone(), start)
    }
}

impl<N: Idx> DirectedGraph for CsrGraph<N> {
    type Node = N;
    fn num_nodes(&self) -> usize {
        self.succ.num_rows()
    }
}

impl<N: Idx> Successors for CsrGraph<N> {
    #[inline]
    fn successors(&self, node: N) -> &[N] {
        self.succ.row(node)
    }
    #[inline]
    fn prefetch_successors(&self, node: N) {
        self.succ.prefetch_successors(node)
    }
}

impl<N: Idx> Predecessors for CsrGraph<N> {
    #[inline]
    fn predecessors(&self, node: N) -> &[N] {
        self.pred.row(node)
    }
}

impl<N: Idx> WithStart for CsrGraph<N> {
    fn start_node(&self) -> N {
        self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_edges_keeps_order_and_transposes() {
        let g: Csr = Csr::from_edges(3, &[(0, 2), (0, 1), (1, 2)]).unwrap();
        assert_eq!(g.successors(0), &[2, 1]);
        assert_eq!(g.successors(2), &[] as &[u32]);
        let t = g.transpose();
        assert_eq!(t.successors(2), &[0, 1]);
        let mut b: Csr<u32, u32> = Csr::with_no_rows();
        assert_eq!(b.push_row([7, 8]), 0);
        assert_eq!(b.push_row([]), 1);
        assert_eq!((b.row(0), b.num_rows()), (&[7, 8][..], 2));
    }

    #[test]
    fn csr_graph_checks_its_input() {
        let g: CsrGraph = CsrGraph::from_edges(3, &[(0, 2), (2, 1)], 0).unwrap();
        assert_eq!(
            (g.successors(2), g.predecessors(2), g.start_node()),
            (&[1][..], &[0][..], 0)
        );
        assert_eq!(g.edges().collect::<Vec<_>>(), [(0, 2), (2, 1)]);
        assert!(matches!(
            CsrGraph::<u32>::from_edges(3, &[(0, 3)], 0),
            Err(GraphError::EdgeOutOfRange { target: 3, .. })
        ));
        assert!(matches!(
            CsrGraph::<u32>::from_edges(3, &[], 3),
            Err(GraphError::StartOutOfRange { start: 3, .. })
        ));
        let empty: CsrGraph = CsrGraph::from_edges(0, &[], 0).unwrap();
        assert_eq!(empty.num_nodes(), 0);
        let r = g.reversed(1).unwrap();
        assert_eq!(r.successors(1), &[2]);
    }
}
