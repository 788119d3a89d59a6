//! The `function-attrs` pass of the CGSCC pass manager.
//!
//! When the module was read with its instruction view, the pass is LLVM 14's
//! `function-attrs` ([`super::function_attrs`]), exactly: each SCC's functions are
//! inferred in the graph's member order, callees first, on their bodies as the passes
//! before left them (the inliner's, [`crate::llvm::ir::body`]). A module read without
//! the view, and an SCC the summary estimate inlined into (it changes no body), fall
//! back to the summary approximation below.
//!
//! Summary approximation: `norecurse` and a `readnone`/`readonly` memory summary. For
//! SCC `S`: the memory effect is the join of the bodies' own effects, of every
//! callee outside `S` (its inferred effect if defined, its declared effect otherwise),
//! and `Write` for indirect calls and inline assembly; it is never weaker than what the
//! function already declares. `norecurse` holds when `S` is one function with no call
//! into `S` and every callee is `norecurse` (inferred, declared, or an intrinsic) and
//! no call is indirect. Kernels are roots, so they are inferred last. O(calls of S).

use super::summary::{CallTarget, MemEffect};
use super::{Abort, CgsccPass, PassContext, PassResult};
use crate::callgraph::{function_of_node, SccIdx};
use crate::llvm::attrs::Attr;
use crate::llvm::FuncIdx;

/// The `function-attrs` pass.
#[derive(Debug)]
pub struct FunctionAttrs;

impl CgsccPass for FunctionAttrs {
    fn name(&self) -> String {
        "function-attrs".into()
    }

    fn infers_attrs(&self) -> bool {
        true
    }

    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        let nodes = cx.m.graph.scc_nodes(scc).to_vec();
        if let (Some(inf), Some(st)) = (cx.m.fn_attrs.as_mut(), cx.m.llvm14.as_mut()) {
            if !nodes.iter().any(|&n| cx.m.summ.inlined_into[n]) {
                let members: Vec<FuncIdx> = nodes.iter().map(|&n| function_of_node(n)).collect();
                // inferred ahead over this body, reading what the walk has now: taken
                let ahead = match members[..] {
                    [f] => st.take_made_attrs(f),
                    _ => None,
                }
                .filter(|u| u.attrs.as_ref().is_some_and(|a| a.holds(inf)));
                let mut uses = st.take_use_tables(&members);
                let changed = match ahead {
                    Some(u) => {
                        st.attrs_taken += 1;
                        u.attrs.as_ref().is_some_and(|a| inf.take_made(a))
                    }
                    None => {
                        let (bodies, made) = st.body_store();
                        inf.run_scc_with(&members, bodies, made, &mut uses)
                    }
                };
                for (&n, &f) in nodes.iter().zip(&members) {
                    cx.m.work[n] += inf.body_rows(f);
                    st.set_cur_attrs(f, *inf.fn_attrs(f));
                }
                for (&n, &f) in nodes.iter().zip(&members) {
                    let a = inf.fn_attrs(f);
                    cx.m.inferred_mem[n] = Some(if a.has(Attr::ReadNone) {
                        MemEffect::None
                    } else if a.has(Attr::ReadOnly) {
                        MemEffect::Read
                    } else {
                        MemEffect::Write
                    });
                    cx.m.inferred_norecurse[n] = a.has(Attr::NoRecurse);
                }
                return Ok(if changed {
                    PassResult::Changed
                } else {
                    PassResult::Unchanged
                });
            }
        }
        let m = &*cx.m;
        let s = &m.summ;
        let mut mem = MemEffect::None;
        let mut norec = nodes.len() == 1;
        for &n in &nodes {
            mem = mem.max(s.local_mem[n]);
            for c in &s.calls[n] {
                match c.callee {
                    CallTarget::Function(t) if m.graph.scc_of(t) == Some(scc) => norec = false,
                    CallTarget::Function(t) => {
                        if s.is_definition[t] && !m.graph.is_removed(t) {
                            mem = mem.max(
                                m.inferred_mem[t]
                                    .unwrap_or(s.declared_mem[t])
                                    .min(s.declared_mem[t]),
                            );
                            norec &= m.inferred_norecurse[t] || s.declared_norecurse[t];
                        } else {
                            mem = mem.max(s.declared_mem[t]);
                            norec &= s.declared_norecurse[t] || s.is_intrinsic(t);
                        }
                    }
                    CallTarget::Indirect => {
                        mem = MemEffect::Write;
                        norec = false;
                    }
                    CallTarget::InlineAsm => mem = MemEffect::Write,
                }
            }
        }
        let mut changed = PassResult::Unchanged;
        for &n in &nodes {
            let eff = mem.min(cx.m.summ.declared_mem[n]);
            let nr = norec || cx.m.summ.declared_norecurse[n];
            if cx.m.inferred_mem[n] != Some(eff) || cx.m.inferred_norecurse[n] != nr {
                cx.m.inferred_mem[n] = Some(eff);
                cx.m.inferred_norecurse[n] = nr;
                changed = PassResult::Changed;
            }
        }
        Ok(changed)
    }
}

impl super::CgsccModule {
    /// Inferred attributes of node `n` as LLVM would print them (`norecurse readnone`);
    /// empty when nothing was inferred.
    pub fn inferred_attrs(&self, n: crate::callgraph::NodeIdx) -> String {
        let mut out = Vec::new();
        if self.inferred_norecurse[n] {
            out.push("norecurse");
        }
        if let Some(e) = self.inferred_mem[n] {
            if !e.attr().is_empty() {
                out.push(e.attr());
            }
        }
        out.join(" ")
    }
}
