//! Argument attributes (`addArgumentAttrs`): `nonnull` from calls in the entry block,
//! `nocapture` (capture tracking, then the argument graph of the SCC's calls for the
//! arguments that only flow into other SCC members' formals), and the access attributes
//! `readnone` / `readonly` / `writeonly` (`determinePointerAccessAttrs`).

use super::capture::Tracker;
use super::Inference;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{ArgIdx, InstIdx, Opcode, Value};
use crate::llvm::FuncIdx;
use ahash::{AHashMap, AHashSet};

/// The argument graph of one SCC: nodes are arguments, an edge `a -> b` says `a` is
/// passed to formal `b` of an SCC member.
#[derive(Default)]
struct ArgGraph {
    nodes: Vec<ArgIdx>,
    index: AHashMap<ArgIdx, usize>,
    uses: Vec<Vec<usize>>,
}

impl ArgGraph {
    fn node(&mut self, a: ArgIdx) -> usize {
        if let Some(&n) = self.index.get(&a) {
            return n;
        }
        self.nodes.push(a);
        self.uses.push(Vec::new());
        self.index.insert(a, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// SCCs in post-order (each after the SCCs it reaches); iterative Tarjan.
    fn sccs(&self) -> Vec<Vec<usize>> {
        let n = self.nodes.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = Vec::new();
        let mut next = 0usize;
        for root in 0..n {
            if index[root] != usize::MAX {
                continue;
            }
            let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(&mut (v, ref mut e)) = frames.last_mut() {
                if let Some(&w) = self.uses[v].get(*e) {
                    *e += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        frames.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                frames.pop();
                if let Some(&(p, _)) = frames.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut scc = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        scc.push(w);
                        if w == v {
                            break;
                        }
                    }
                    scc.reverse();
                    out.push(scc);
                }
            }
        }
        out
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
    pub(super) fn transfers_to_successor(&self, f: FuncIdx, i: InstIdx) -> bool {
        match self.ir.op(i) {
            Opcode::Ret | Opcode::Unreachable => false,
            Opcode::CatchPad => self.personality_is_coreclr(f),
            _ => !self.may_throw(i) && self.inst_will_return(i),
        }
    }

    fn personality_is_coreclr(&self, f: FuncIdx) -> bool {
        let mut v = self.ir.func(f).personality;
        if let Value::Expr(e) = v {
            if self.ir.expr_op(e) == Opcode::BitCast {
                v = self
                    .ir
                    .expr_operands(e)
                    .first()
                    .copied()
                    .unwrap_or(Value::None);
            }
        }
        match v {
            Value::Global(s) => self.facts.coreclr_personality == Some(s),
            _ => false,
        }
    }

    /// `addArgumentAttrsFromCallsites`: an argument passed, in the entry block before
    /// anything that may not continue, to a callee parameter that is non-null gets
    /// `nonnull`.
    fn nonnull_from_callsites(&mut self, f: FuncIdx) {
        let ir = self.ir.clone();
        if ir.num_blocks(f) == 0 {
            return;
        }
        for i in ir.block_insts(f, crate::idx::BlockIdx::new(0)) {
            if let Some(c) = ir.call_of(i) {
                if let Some(callee) = self.called_function(c) {
                    for (j, p) in ir.args(callee).enumerate() {
                        if !self.arg_nonnull(callee, p, false) {
                            continue;
                        }
                        if let Some(Value::Arg(fa)) = ir.call_args(c).get(j).copied() {
                            if !self.arg_nonnull(f, fa, true) {
                                self.arg_attrs[fa].add(Attr::NonNull);
                            }
                        }
                    }
                }
            }
            if !self.transfers_to_successor(f, i) {
                break;
            }
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
            for a in ir.args(f) {
                if !ir.types.is_pointer(ir.arg_ty(a)) {
                    continue;
                }
                let mut non_local = false;
                if !self.arg_attrs[a].has(Attr::NoCapture) {
                    let mut t = Tracker::Args {
                        uses: Vec::new(),
                        captured: false,
                    };
                    self.capture_walk(f, Value::Arg(a), &mut t);
                    if let Tracker::Args { uses, captured } = t {
                        if !captured {
                            if uses.is_empty() {
                                self.arg_attrs[a].add(Attr::NoCapture);
                            } else {
                                let n = ag.node(a);
                                for u in uses {
                                    let m = ag.node(u);
                                    ag.uses[n].push(m);
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
        for scc in ag.sccs() {
            if scc.len() == 1 {
                let n = scc[0];
                if ag.uses[n].len() == 1 && ag.uses[n][0] == n {
                    let a = ag.nodes[n];
                    self.arg_attrs[a].add(Attr::NoCapture);
                    if let Some(r) = self.access_attr(a, &[a]) {
                        self.add_access_attr(a, r);
                    }
                }
                continue;
            }
            let members: Vec<ArgIdx> = scc.iter().map(|&n| ag.nodes[n]).collect();
            let captured = scc.iter().any(|&n| {
                ag.uses[n].is_empty() && !self.arg_attrs[ag.nodes[n]].has(Attr::NoCapture)
            }) || scc.iter().any(|&n| {
                ag.uses[n].iter().any(|&u| {
                    let b = ag.nodes[u];
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
        let (mut read, mut write) = (false, false);
        let mut visited: AHashSet<usize> = AHashSet::new();
        let mut worklist: Vec<usize> = Vec::new();
        for k in ir.use_rows(Value::Arg(a)) {
            visited.insert(k);
            worklist.push(k);
        }
        while let Some(k) = worklist.pop() {
            if read && write {
                return None;
            }
            let u = ir.use_at(k);
            let i = u.user;
            match ir.op(i) {
                Opcode::BitCast
                | Opcode::GetElementPtr
                | Opcode::Phi
                | Opcode::Select
                | Opcode::AddrSpaceCast => {
                    for k2 in ir.use_rows(Value::Inst(i)) {
                        if visited.insert(k2) {
                            worklist.push(k2);
                        }
                    }
                }
                Opcode::Call | Opcode::Invoke => {
                    let c = ir.call_of(i)?;
                    let j = u.op as usize;
                    if j == ir.callee_operand_index(c) {
                        read = true;
                        continue;
                    }
                    if !self.data_operand_has(c, j, Attr::NoCapture) {
                        if !self.call_only_reads(c) {
                            return None;
                        }
                        if !ir.types.is_void(ir.ty(i)) {
                            for k2 in ir.use_rows(Value::Inst(i)) {
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
                        if j < ir.call_arg_count(c)
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
                    if ir.flags(i).is_volatile() {
                        return None;
                    }
                    read = true;
                }
                Opcode::Store => {
                    // the stored value is the argument itself: untrackable
                    if ir.operand(i, 0) == ir.operand(i, u.op as usize) || ir.flags(i).is_volatile()
                    {
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
