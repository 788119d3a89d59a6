//! Argument attributes (`addArgumentAttrs`): `nonnull` from calls in the entry block,
//! `nocapture` (capture tracking, then the argument graph of the SCC's calls for the
//! arguments that only flow into other SCC members' formals), and the access attributes
//! `readnone` / `readonly` / `writeonly` (`determinePointerAccessAttrs`).

use super::capture::Tracker;
use super::Inference;
use crate::graph::{CompIdx, Csr, SccGraph, Successors, Tarjan};
use crate::hash::{FixedMap, FixedSet};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{RowIdx, V};
use crate::llvm::ir::{ArgIdx, Opcode};
use crate::llvm::FuncIdx;

/// The argument graph of one SCC: nodes are arguments, numbered as first met; an edge
/// `a -> b` says `a` is passed to formal `b` of an SCC member. A node's edges are kept
/// in the order they were met (the order of its uses), which is the order the SCC walk
/// takes them.
#[derive(Default)]
struct ArgGraph {
    nodes: Vec<ArgIdx>,
    index: FixedMap<ArgIdx, u32>,
    /// Every edge `(from, to)`, in the order met.
    edges: Vec<(u32, u32)>,
}

/// The argument graph as [`Tarjan`] walks it, numbering the nodes in DFS preorder as the
/// walk enters them.
struct Preorder<'a> {
    g: &'a Csr<u32>,
    order: Vec<u32>,
    next: u32,
}

impl SccGraph for Preorder<'_> {
    type Node = u32;
    type Edge = u32;
    #[inline]
    fn enter(&mut self, n: u32) {
        self.order[n as usize] = self.next;
        self.next += 1;
    }
    #[inline]
    fn edges(&self, n: u32) -> &[u32] {
        self.g.successors(n)
    }
    #[inline]
    fn target(&self, e: u32) -> Option<u32> {
        Some(e)
    }
}

impl ArgGraph {
    fn node(&mut self, a: ArgIdx) -> u32 {
        if let Some(&n) = self.index.get(&a) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(a);
        self.index.insert(a, n);
        n
    }

    /// The graph as CSR (each node's uses in the order met), and its SCCs in the order
    /// LLVM's `scc_iterator` yields them: Tarjan from roots `0..n` in order, edges in
    /// stored order, each SCC when its root finishes (every SCC after the SCCs it
    /// reaches). Inside an SCC the members are listed in DFS preorder (its root first),
    /// as the argument inference has always listed them (`scc_iterator` lists the
    /// reverse; `graph::tarjan` on its own lists the root, then its pending stack from
    /// the top, hence the sort by `enter` order); the inference does not depend on that
    /// order (it treats an SCC as a set).
    fn sccs(&self) -> (Csr<u32>, Csr<CompIdx, u32>) {
        let n = self.nodes.len();
        let g = Csr::from_edges_in_range(n, &self.edges);
        let mut walk = Preorder {
            g: &g,
            order: vec![0; n],
            next: 0,
        };
        let mut t = Tarjan::<u32>::new();
        t.reset(n);
        t.run(&mut walk, 0..n as u32);
        let order = walk.order;
        let (starts, mut members) = t.take_components().into_raw();
        for w in starts.windows(2) {
            let scc = &mut members[w[0] as usize..w[1] as usize];
            if scc.len() > 1 {
                scc.sort_unstable_by_key(|&x| order[x as usize]);
            }
        }
        (g, Csr::from_raw(starts, members))
    }
}

impl Inference {
    /// `Argument::onlyReadsMemory`.
    fn arg_only_reads(&self, a: ArgIdx) -> bool {
        let s = &self.arg_attrs[a];
        s.has(Attr::ReadOnly) || s.has(Attr::ReadNone)
    }

    /// `Argument::hasNonNullAttr(allow_undef)` for an argument of function `f`.
    fn arg_nonnull(&self, f: FuncIdx, a: ArgIdx, allow_undef: bool) -> bool {
        let ty = self.ir.arg_ty(a);
        if !self.ir.types.is_pointer(ty) {
            return false;
        }
        let s = &self.arg_attrs[a];
        (s.has(Attr::NonNull) && (allow_undef || s.has(Attr::NoUndef)))
            || (s.dereferenceable > 0 && !self.null_defined(f, self.ir.types.addrspace(ty)))
    }

    /// `isGuaranteedToTransferExecutionToSuccessor`.
    pub(super) fn transfers_to_successor(&self, f: FuncIdx, i: RowIdx) -> bool {
        let b = self.body(f);
        match b.op(i) {
            Opcode::Ret | Opcode::Unreachable => false,
            Opcode::CatchPad => self.personality_is_coreclr(f),
            _ => !self.may_throw(b, i) && self.inst_will_return(b, i),
        }
    }

    fn personality_is_coreclr(&self, f: FuncIdx) -> bool {
        match self.strip_one_bitcast(V::K(self.ir.func(f).personality)) {
            V::K(crate::llvm::ir::Value::Global(s)) => self.facts.coreclr_personality == Some(s),
            _ => false,
        }
    }

    /// `addArgumentAttrsFromCallsites`: an argument passed, in the entry block before
    /// anything that may not continue, to a callee parameter that is non-null gets
    /// `nonnull`.
    fn nonnull_from_callsites(&mut self, f: FuncIdx) {
        let b = self.body(f);
        let Some(&entry) = b.layout.first() else {
            return;
        };
        // adding `nonnull` changes no answer below but the one it answers
        let mut found = Vec::new();
        for &i in &b.blocks[entry] {
            if let Some(c) = Self::call_at(b, i) {
                if let Some(callee) = self.called_function(c) {
                    for (j, p) in self.ir.args(callee).enumerate() {
                        if !self.arg_nonnull(callee, p, false) {
                            continue;
                        }
                        if let Some(V::Arg(n)) = c.args().get(j).copied() {
                            let fa = self.arg_of(f, n);
                            if !self.arg_nonnull(f, fa, true) {
                                found.push(fa);
                            }
                        }
                    }
                }
            }
            if !self.transfers_to_successor(f, i) {
                break;
            }
        }
        for fa in found {
            self.arg_attrs[fa].add(Attr::NonNull);
        }
    }

    /// `addArgumentAttrs` over the SCC's nodes.
    pub(super) fn add_argument_attrs(&mut self, nodes: &[FuncIdx]) {
        let ir = self.ir.clone();
        let mut ag = ArgGraph::default();
        for &f in nodes {
            if !self.is_exact(f) {
                continue;
            }
            self.nonnull_from_callsites(f);
            if self.only_reads(f) && self.has(f, Attr::NoUnwind) && self.returns_void(f) {
                for a in ir.args(f) {
                    if ir.types.is_pointer(ir.arg_ty(a)) && !self.arg_attrs[a].has(Attr::NoCapture)
                    {
                        self.arg_attrs[a].add(Attr::NoCapture);
                    }
                }
                continue;
            }
            for (n, a) in ir.args(f).enumerate() {
                if !ir.types.is_pointer(ir.arg_ty(a)) {
                    continue;
                }
                let mut non_local = false;
                if !self.arg_attrs[a].has(Attr::NoCapture) {
                    let mut t = Tracker::Args {
                        uses: Vec::new(),
                        captured: false,
                    };
                    self.capture_walk(f, V::Arg(n as u32), &mut t);
                    if let Tracker::Args { uses, captured } = t {
                        if !captured {
                            if uses.is_empty() {
                                self.arg_attrs[a].add(Attr::NoCapture);
                            } else {
                                let n = ag.node(a);
                                for u in uses {
                                    let m = ag.node(u);
                                    ag.edges.push((n, m));
                                    non_local |= u != a;
                                }
                            }
                        }
                    }
                }
                if !non_local && !self.arg_only_reads(a) {
                    if let Some(r) = self.access_attr(a, &[a]) {
                        self.add_access_attr(a, r);
                    }
                }
            }
        }
        if ag.nodes.is_empty() {
            return;
        }
        let (uses, sccs) = ag.sccs();
        let mut members: Vec<ArgIdx> = Vec::new();
        for scc in sccs.rows().map(|c| sccs.row(c)) {
            if let &[n] = scc {
                if uses.successors(n) == [n] {
                    let a = ag.nodes[n as usize];
                    self.arg_attrs[a].add(Attr::NoCapture);
                    if let Some(r) = self.access_attr(a, &[a]) {
                        self.add_access_attr(a, r);
                    }
                }
                continue;
            }
            members.clear();
            members.extend(scc.iter().map(|&n| ag.nodes[n as usize]));
            let captured = scc.iter().any(|&n| {
                uses.successors(n).is_empty()
                    && !self.arg_attrs[ag.nodes[n as usize]].has(Attr::NoCapture)
            }) || scc.iter().any(|&n| {
                uses.successors(n).iter().any(|&u| {
                    let b = ag.nodes[u as usize];
                    !self.arg_attrs[b].has(Attr::NoCapture) && !members.contains(&b)
                })
            });
            if captured {
                continue;
            }
            for &a in &members {
                self.arg_attrs[a].add(Attr::NoCapture);
            }
            let mut access = Some(Attr::ReadNone);
            for &a in &members {
                let Some(acc) = access else { break };
                let k = self.access_attr(a, &members);
                access = match (acc, k) {
                    (x, Some(y)) if x == y => Some(x),
                    (Attr::ReadNone, y) => y,
                    (x, Some(Attr::ReadNone)) => Some(x),
                    _ => None,
                };
            }
            if let Some(r) = access {
                for &a in &members {
                    self.add_access_attr(a, r);
                }
            }
        }
    }

    /// `addAccessAttr`.
    fn add_access_attr(&mut self, a: ArgIdx, r: Attr) {
        let s = &mut self.arg_attrs[a];
        if s.has(r) {
            return;
        }
        s.remove(Attr::WriteOnly);
        s.remove(Attr::ReadOnly);
        s.remove(Attr::ReadNone);
        s.add(r);
    }

    /// `determinePointerAccessAttrs(a, scc)`: `ReadNone`, `ReadOnly`, `WriteOnly`, or
    /// `None` when the argument's memory may be both read and written (or escapes).
    fn access_attr(&self, a: ArgIdx, scc: &[ArgIdx]) -> Option<Attr> {
        let ir = &*self.ir;
        let s = &self.arg_attrs[a];
        if s.has(Attr::InAlloca) || s.has(Attr::Preallocated) {
            return None;
        }
        let f = ir.arg_func(a);
        let (b, uses) = (self.body(f), self.uses(f));
        let n = (a.idx() - ir.func(f).args.start.idx()) as u32;
        let (mut read, mut write) = (false, false);
        let mut visited: FixedSet<usize> = FixedSet::default();
        let mut worklist: Vec<usize> = Vec::new();
        for k in uses.rows_of(V::Arg(n)) {
            visited.insert(k);
            worklist.push(k);
        }
        while let Some(k) = worklist.pop() {
            if read && write {
                return None;
            }
            let (i, op) = uses.at(k);
            match b.op(i) {
                Opcode::BitCast
                | Opcode::GetElementPtr
                | Opcode::Phi
                | Opcode::Select
                | Opcode::AddrSpaceCast => {
                    for k2 in uses.rows_of(V::Inst(i)) {
                        if visited.insert(k2) {
                            worklist.push(k2);
                        }
                    }
                }
                Opcode::Call | Opcode::Invoke => {
                    let c = Self::call_at(b, i)?;
                    let j = op as usize;
                    if j == c.callee_index() {
                        read = true;
                        continue;
                    }
                    if !self.data_operand_has(c, j, Attr::NoCapture) {
                        if !self.call_only_reads(c) {
                            return None;
                        }
                        if !ir.types.is_void(b.ty(i)) {
                            for k2 in uses.rows_of(V::Inst(i)) {
                                if visited.insert(k2) {
                                    worklist.push(k2);
                                }
                            }
                        }
                    }
                    if self.call_has(c, Attr::ReadNone) {
                        continue;
                    }
                    if let Some(callee) = self.called_function(c) {
                        if j < c.nargs()
                            && j < ir.num_args(callee)
                            && scc.contains(&ir.arg(callee, j)?)
                        {
                            continue;
                        }
                    }
                    if self.data_operand_has(c, j, Attr::ReadNone) {
                    } else if self.call_only_reads(c) || self.data_operand_has(c, j, Attr::ReadOnly)
                    {
                        read = true;
                    } else if self.call_has(c, Attr::WriteOnly)
                        || self.data_operand_has(c, j, Attr::WriteOnly)
                    {
                        write = true;
                    } else {
                        return None;
                    }
                }
                Opcode::Load => {
                    if b.flags(i).is_volatile() {
                        return None;
                    }
                    read = true;
                }
                Opcode::Store => {
                    // the stored value is the argument itself: untrackable
                    if b.ops(i)[0] == b.ops(i)[op as usize] || b.flags(i).is_volatile() {
                        return None;
                    }
                    write = true;
                }
                Opcode::ICmp | Opcode::Ret => {}
                _ => return None,
            }
        }
        match (read, write) {
            (true, true) => None,
            (true, false) => Some(Attr::ReadOnly),
            (false, true) => Some(Attr::WriteOnly),
            (false, false) => Some(Attr::ReadNone),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    /// The argument graph with `n` nodes (arguments `0..n`) and `edges` added in order.
    fn arg_graph(n: usize, edges: &[(u32, u32)]) -> ArgGraph {
        let mut ag = ArgGraph::default();
        for i in 0..n {
            ag.node(ArgIdx::new(i));
        }
        ag.edges.extend_from_slice(edges);
        ag
    }

    fn sccs_of(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let (_, sccs) = arg_graph(n, edges).sccs();
        sccs.rows().map(|c| sccs.row(c).to_vec()).collect()
    }

    /// The order oracle, from definitions rather than a Tarjan: a DFS from roots `0..n`
    /// in order (edges in stored order) numbers nodes in preorder and finish order; the
    /// SCCs (mutual reachability) come out in the order their first-entered member
    /// finishes, their members in preorder.
    fn dfs_oracle(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let succ = |v: usize| {
            edges
                .iter()
                .filter(move |e| e.0 as usize == v)
                .map(|e| e.1 as usize)
        };
        let mut reach = vec![vec![false; n]; n];
        for (s, from_s) in reach.iter_mut().enumerate() {
            let mut stack = vec![s];
            from_s[s] = true;
            while let Some(x) = stack.pop() {
                for y in succ(x) {
                    if !from_s[y] {
                        from_s[y] = true;
                        stack.push(y);
                    }
                }
            }
        }
        let (mut pre, mut fin) = (vec![usize::MAX; n], vec![usize::MAX; n]);
        let (mut next_pre, mut next_fin) = (0, 0);
        for root in 0..n {
            if pre[root] != usize::MAX {
                continue;
            }
            pre[root] = next_pre;
            next_pre += 1;
            let mut stack = vec![(root, 0usize)];
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                if let Some(w) = succ(v).nth(*i) {
                    *i += 1;
                    if pre[w] == usize::MAX {
                        pre[w] = next_pre;
                        next_pre += 1;
                        stack.push((w, 0));
                    }
                    continue;
                }
                fin[v] = next_fin;
                next_fin += 1;
                stack.pop();
            }
        }
        let mut sccs: Vec<Vec<u32>> = Vec::new();
        let mut done = vec![false; n];
        for v in 0..n {
            if done[v] {
                continue;
            }
            let mut c: Vec<usize> = (0..n).filter(|&w| reach[v][w] && reach[w][v]).collect();
            c.sort_unstable_by_key(|&w| pre[w]);
            for &w in &c {
                done[w] = true;
            }
            sccs.push(c.into_iter().map(|w| w as u32).collect());
        }
        sccs.sort_unstable_by_key(|c| fin[c[0] as usize]);
        sccs
    }

    fn random_graph(seed: &mut u64) -> (usize, Vec<(u32, u32)>) {
        let n = (lcg(seed) % 24 + 1) as usize;
        let m = (lcg(seed) % (3 * n as u64 + 1)) as usize;
        let edges = (0..m)
            .map(|_| ((lcg(seed) % n as u64) as u32, (lcg(seed) % n as u64) as u32))
            .collect();
        (n, edges)
    }

    /// The SCC order of [`ArgGraph::sccs`] is the DFS order (see [`dfs_oracle`]): the
    /// order the private Tarjan this file once carried produced (checked equal on random
    /// graphs before it was replaced by `graph::tarjan`).
    #[test]
    fn sccs_in_tarjan_order() {
        let mut seed = 0xa59_u64;
        for _ in 0..3000 {
            let (n, edges) = random_graph(&mut seed);
            assert_eq!(sccs_of(n, &edges), dfs_oracle(n, &edges), "{edges:?}");
        }
    }

    /// Pinned cases, two where `graph::tarjan`'s own member order (root, then the
    /// pending stack from the top) differs from the preorder kept here.
    #[test]
    fn sccs_pinned() {
        // 0 -> 1, 0 -> 2, 1 -> 0, 2 -> 0: Tarjan lists [0, 2, 1]
        assert_eq!(
            sccs_of(3, &[(0, 1), (0, 2), (1, 0), (2, 0)]),
            [vec![0, 1, 2]]
        );
        let edges = [
            (3, 2),
            (0, 5),
            (6, 2),
            (0, 2),
            (4, 6),
            (8, 5),
            (2, 1),
            (1, 7),
            (2, 3),
            (2, 4),
        ];
        // Tarjan lists [2, 4, 6, 3]
        assert_eq!(
            sccs_of(9, &edges),
            [
                vec![5],
                vec![7],
                vec![1],
                vec![2, 3, 4, 6],
                vec![0],
                vec![8]
            ]
        );
        // a self loop, a parallel edge, edges met out of source order
        let (uses, sccs) = arg_graph(3, &[(1, 0), (0, 1), (1, 2), (0, 0), (1, 2)]).sccs();
        assert_eq!(uses.successors(0), [1, 0]);
        assert_eq!(uses.successors(1), [0, 2, 2]);
        assert!(uses.successors(2).is_empty());
        let got: Vec<Vec<u32>> = sccs.rows().map(|c| sccs.row(c).to_vec()).collect();
        assert_eq!(got, [vec![2], vec![0, 1]]);
    }
}
