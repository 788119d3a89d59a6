//! [`LazyCallGraph::verify`]: every invariant of a built graph, checked without a panic.

use super::{LazyCallGraph, NodeIdx, RefSccIdx, SccIdx, VerifyError, NO_POS};
use crate::hash::FixedSet;

impl LazyCallGraph {
    /// Checks every invariant listed in the module docs. Reports all problems; never
    /// panics.
    pub fn verify(&self) -> Vec<VerifyError> {
        let mut errs = Vec::new();
        let mut err = |m: String| errs.push(VerifyError(m));
        let n = self.num_nodes();
        for (node, list) in self.edges.iter_enumerated() {
            for e in list {
                if e.target().idx() >= n {
                    err(format!("edge {} -> {} dangles", node.0, e.target().0));
                }
            }
        }
        if !self.built {
            return errs;
        }
        for e in self.order.check() {
            err(e);
        }
        let num_rc = self.rc_sccs.num_lists();
        for r in self.order.iter() {
            if r.idx() >= num_rc || self.refscc_sccs(r).is_empty() {
                err(format!("{r} is empty"));
            }
        }
        let rc_of = |s: SccIdx| self.scc_rc.get(s).copied().unwrap_or(RefSccIdx::NONE);
        let pos_of = |s: SccIdx| self.scc_pos.get(s).copied().unwrap_or(NO_POS);
        let scc_of = |x: NodeIdx| self.scc_of.get(x).copied().unwrap_or(SccIdx::NONE);
        for r in self.order.iter() {
            if r.idx() >= num_rc {
                continue;
            }
            for (k, &s) in self.refscc_sccs(r).iter().enumerate() {
                if rc_of(s) != r || pos_of(s) != k as u32 {
                    err(format!(
                        "{s} in {r} at {k} has refscc/pos {}/{}",
                        rc_of(s),
                        pos_of(s)
                    ));
                }
                if s.idx() >= self.scc_nodes.num_lists() || self.scc_nodes(s).is_empty() {
                    err(format!("{s} is empty"));
                    continue;
                }
                for &x in self.scc_nodes(s) {
                    if scc_of(x) != s {
                        err(format!(
                            "node {} in {s} maps to {}",
                            self.name(x).unwrap_or("?"),
                            scc_of(x)
                        ));
                    }
                }
            }
        }
        // edge direction rules
        for a in self.nodes() {
            let sa = self.scc_of[a];
            if sa.is_none() {
                continue;
            }
            let ra = rc_of(sa);
            for e in self.cached_edges(a) {
                let sb = scc_of(e.target);
                if sb.is_none() {
                    err(format!(
                        "edge {} -> {} leaves the built graph",
                        self.name(a).unwrap_or("?"),
                        self.name(e.target).unwrap_or("?")
                    ));
                    continue;
                }
                let rb = rc_of(sb);
                if self.order.label(rb) > self.order.label(ra) {
                    err(format!(
                        "edge {} -> {} goes to a later RefSCC",
                        self.name(a).unwrap_or("?"),
                        self.name(e.target).unwrap_or("?")
                    ));
                }
                if e.is_call() && ra == rb && pos_of(sb) > pos_of(sa) {
                    err(format!(
                        "call {} -> {} goes to a later SCC",
                        self.name(a).unwrap_or("?"),
                        self.name(e.target).unwrap_or("?")
                    ));
                }
            }
        }
        // strong connectivity: every SCC over its call edges, every RefSCC over all edges
        for r in self.order.iter() {
            if r.idx() >= num_rc {
                continue;
            }
            for &s in self.refscc_sccs(r) {
                if s.idx() < self.scc_nodes.num_lists()
                    && !self.strongly_connected(self.scc_nodes(s), true)
                {
                    err(format!("{s} is not strongly connected over call edges"));
                }
            }
            let nodes: Vec<NodeIdx> = self.refscc_nodes(r).collect();
            if !self.strongly_connected(&nodes, false) {
                err(format!("{r} is not strongly connected"));
            }
        }
        errs
    }

    /// Whether `nodes` form one strongly connected set using edges inside the set.
    fn strongly_connected(&self, nodes: &[NodeIdx], calls_only: bool) -> bool {
        if nodes.len() <= 1 {
            return true;
        }
        let set: FixedSet<NodeIdx> = nodes.iter().copied().collect();
        let reach = |forward: bool| -> usize {
            let mut seen = FixedSet::default();
            seen.insert(nodes[0]);
            let mut stack = vec![nodes[0]];
            while let Some(x) = stack.pop() {
                if forward {
                    for e in self.cached_edges(x) {
                        if (!calls_only || e.is_call())
                            && set.contains(&e.target)
                            && seen.insert(e.target)
                        {
                            stack.push(e.target);
                        }
                    }
                } else {
                    for &y in nodes {
                        if !seen.contains(&y)
                            && self.edges[y]
                                .iter()
                                .any(|e| e.target() == x && (!calls_only || e.is_call()))
                        {
                            seen.insert(y);
                            stack.push(y);
                        }
                    }
                }
            }
            seen.len()
        };
        reach(true) == nodes.len() && reach(false) == nodes.len()
    }
}
