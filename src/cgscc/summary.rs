//! Function summaries read from an LLVM IR module: what the CGSCC passes need to act on a
//! module without a full IR (instruction count, inline cost estimate, call sites,
//! linkage, inlining attributes, kernel-ness, a memory-effect summary of the body).
//!
//! # Tables
//! Every column is a dense table keyed by function ([`NodeIdx`], module order, the
//! same numbering as [`crate::callgraph::from_module`]). Call sites are per-function
//! lists (they grow when the inliner merges a callee into a caller; a position in one
//! is a [`CallIdx`]); call-site locations are rows of one pool ([`Summaries::locs`],
//! keyed by [`LocIdx`]) that chain through `inlined_at`, like LLVM's `DILocation`
//! chains; inline histories are rows of another ([`Summaries::history`], [`HistIdx`]).
//!
//! # Invariants
//! - every column has `names.len()` rows;
//! - `calls[f]` is empty for a declaration; every `CallSummary::loc < locs.len()`;
//!   every `CallLoc::inlined_at` is `LocIdx::NONE` or an earlier row; every history
//!   parent is `HistIdx::NONE` or an earlier row.
//!
//! Building is linear in the module's size.

use crate::callgraph::{node_of_function, NodeIdx};
use crate::idx::IndexVec;
use crate::llvm::ir::debugloc::CallSiteFormat;
pub use crate::llvm::MemEffect;
use crate::llvm::{Callee, Linkage, Module};

crate::define_idx!(
    /// A call site's position in its function's call list ([`Summaries::calls`]).
    CallIdx,
    "call"
);

crate::define_idx!(
    /// A row of the call-site location pool ([`Summaries::locs`]).
    LocIdx,
    "loc"
);

crate::define_idx!(
    /// A row of the inline-history pool ([`Summaries::history`]).
    HistIdx,
    "hist"
);

/// What a call site calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// A direct call of a function (defined or declared), with a matching type.
    Function(NodeIdx),
    /// A computed callee (or a direct callee through a cast).
    Indirect,
    /// Inline assembly.
    InlineAsm,
}

/// One call site of a function body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSummary {
    /// The callee.
    pub callee: CallTarget,
    /// Number of call arguments.
    pub arg_count: u32,
    /// Location row in [`Summaries::locs`].
    pub loc: LocIdx,
    /// Inline-history row in [`Summaries::history`] (`HistIdx::NONE`: written in the
    /// caller).
    pub history: HistIdx,
}

/// One row of the location pool; a location is a chain of call sites, innermost first
/// (LLVM's `DILocation` with its `inlinedAt` chain), stored as a tree so that inlining a
/// body rebases each of its locations with one new row:
/// - a *site* row (`inner` is `LocIdx::NONE`): the call written at 1-based position
///   `ordinal` among the call sites of `func`, followed by the chain of `inlined_at`;
/// - a *rebased* row (`inner` set): the chain of `inner`, followed by the chain of
///   `inlined_at` (`func` and `ordinal` unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallLoc {
    /// Function whose text contains the call (site rows).
    pub func: NodeIdx,
    /// 1-based call-site ordinal in that function (stands in for the debug line).
    pub ordinal: u32,
    /// The chain that follows, or `LocIdx::NONE`.
    pub inlined_at: LocIdx,
    /// A rebased row's own chain, or `LocIdx::NONE` for a site row.
    pub inner: LocIdx,
}

/// Per-function summaries of one module (see the module docs for the invariants).
#[derive(Clone, Debug, Default)]
pub struct Summaries {
    /// Function names (no `@`).
    pub names: IndexVec<NodeIdx, std::sync::Arc<str>>,
    /// Has a body.
    pub is_definition: IndexVec<NodeIdx, bool>,
    /// Linkage.
    pub linkage: IndexVec<NodeIdx, Linkage>,
    /// `ptx_kernel` calling convention or an `nvvm.annotations` `"kernel", i32 1` entry.
    pub is_kernel: IndexVec<NodeIdx, bool>,
    /// `alwaysinline`.
    pub always_inline: IndexVec<NodeIdx, bool>,
    /// `noinline`.
    pub no_inline: IndexVec<NodeIdx, bool>,
    /// `inlinehint`.
    pub inline_hint: IndexVec<NodeIdx, bool>,
    /// `cold`.
    pub cold: IndexVec<NodeIdx, bool>,
    /// Declared `norecurse`.
    pub declared_norecurse: IndexVec<NodeIdx, bool>,
    /// Memory effect from the function's attributes (`Write` when none say otherwise).
    pub declared_mem: IndexVec<NodeIdx, MemEffect>,
    /// Memory effect of the body's own instructions (loads/stores to non-`alloca`
    /// pointers, atomics, fences), calls excluded.
    pub local_mem: IndexVec<NodeIdx, MemEffect>,
    /// Instructions in the body (grows by inlining).
    pub instructions: IndexVec<NodeIdx, u32>,
    /// Call sites in text order (inlined call sites are appended); position = [`CallIdx`].
    pub calls: IndexVec<NodeIdx, Vec<CallSummary>>,
    /// Functions referenced (not called) by the body: the call graph's ref edges.
    pub refs: IndexVec<NodeIdx, Vec<NodeIdx>>,
    /// Location pool.
    pub locs: IndexVec<LocIdx, CallLoc>,
    /// Inline history pool: `(callee inlined, parent row or HistIdx::NONE)`.
    pub history: IndexVec<HistIdx, (NodeIdx, HistIdx)>,
    /// The inliner merged a callee into this body: the module's instruction view no
    /// longer describes it.
    pub inlined_into: IndexVec<NodeIdx, bool>,
}

/// Instruction cost unit (LLVM's `InlineConstants::InstrCost`).
pub const INSTR_COST: i64 = 5;
/// Extra cost per call in the callee (LLVM's `CallPenalty`).
pub const CALL_PENALTY: i64 = 25;
/// Bonus for inlining the only call of a local function (`LastCallToStaticBonus`).
pub const LAST_CALL_TO_STATIC_BONUS: i64 = 15_000;

impl Summaries {
    /// Summaries of every function of `m`: kernels (calling convention or
    /// `nvvm.annotations`), inlining attributes, declared and body memory effects, call
    /// sites with their callees.
    pub fn from_module(m: &Module) -> Summaries {
        let n = m.functions().len();
        let mut s = Summaries {
            names: IndexVec::with_capacity(n),
            ..Default::default()
        };
        for (fi, f) in m.functions().iter_enumerated() {
            let has = |a: &str| m.function_has_attr(fi, a);
            s.names.push(std::sync::Arc::from(f.name.as_str()));
            s.is_definition.push(f.is_definition);
            s.linkage.push(f.linkage);
            s.is_kernel.push(f.is_kernel());
            s.always_inline.push(has("alwaysinline"));
            s.no_inline.push(has("noinline"));
            s.inline_hint.push(has("inlinehint"));
            s.cold.push(has("cold"));
            s.declared_norecurse.push(has("norecurse"));
            let declared = m.declared_mem(fi);
            s.declared_mem.push(declared);
            s.local_mem.push(if f.is_definition {
                f.body_mem
            } else {
                declared
            });
            s.instructions.push(f.instruction_count);
            let mut calls = Vec::with_capacity(f.call_sites.len());
            for (k, c) in f.call_sites.iter().enumerate() {
                let callee = match c.callee {
                    Callee::Direct(_) => match m.called_function(c) {
                        Some(t) => CallTarget::Function(node_of_function(t)),
                        None => CallTarget::Indirect,
                    },
                    Callee::Const(_) | Callee::Indirect => CallTarget::Indirect,
                    Callee::InlineAsm => CallTarget::InlineAsm,
                };
                let loc = s.locs.push(CallLoc {
                    func: node_of_function(fi),
                    ordinal: k as u32 + 1,
                    inlined_at: LocIdx::NONE,
                    inner: LocIdx::NONE,
                });
                calls.push(CallSummary {
                    callee,
                    arg_count: c.arg_count,
                    loc,
                    history: HistIdx::NONE,
                });
            }
            s.calls.push(calls);
            s.refs.push(Vec::new());
            s.inlined_into.push(false);
        }
        s
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True for a module without functions.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The function named `name`.
    pub fn index_of(&self, name: &str) -> Option<NodeIdx> {
        self.names
            .iter()
            .position(|n| &**n == name)
            .map(NodeIdx::new)
    }

    /// Whether `f` is an LLVM intrinsic (`llvm.*`).
    pub fn is_intrinsic(&self, f: NodeIdx) -> bool {
        self.names[f].starts_with("llvm.")
    }

    /// Inline cost estimate of `f`'s body: [`INSTR_COST`] per instruction plus
    /// [`CALL_PENALTY`] per call site, without the call-site bonuses.
    pub fn body_cost(&self, f: NodeIdx) -> i64 {
        INSTR_COST * self.instructions[f] as i64 + CALL_PENALTY * self.calls[f].len() as i64
    }

    /// Cost of inlining `call` (a call of `f`): the body cost minus the call and its
    /// argument setup and the callee's return, minus [`LAST_CALL_TO_STATIC_BONUS`] when
    /// `only_use` (a local callee whose last use this call is).
    pub fn call_cost(&self, f: NodeIdx, call: &CallSummary, only_use: bool) -> i64 {
        let mut c = self.body_cost(f) - INSTR_COST * (call.arg_count as i64 + 2);
        if only_use {
            c -= LAST_CALL_TO_STATIC_BONUS;
        }
        c
    }

    /// The callee chain of a history row, innermost first.
    pub fn history_contains(&self, mut h: HistIdx, f: NodeIdx) -> bool {
        while !h.is_none() {
            let (g, parent) = self.history[h];
            if g == f {
                return true;
            }
            h = parent;
        }
        false
    }

    /// Location chain `loc` continued by the chain of `at` (a call inlined through the
    /// call at `at`): one new row, whatever the chains' lengths.
    pub fn rebase_loc(&mut self, loc: LocIdx, at: LocIdx) -> LocIdx {
        if at.is_none() {
            return loc;
        }
        self.locs.push(CallLoc {
            func: NodeIdx::NONE,
            ordinal: 0,
            inlined_at: at,
            inner: loc,
        })
    }

    /// The call sites of location `loc`, innermost first: `(function, ordinal)`.
    pub fn loc_chain(&self, loc: LocIdx) -> impl Iterator<Item = (NodeIdx, u32)> + '_ {
        let mut stack = vec![loc];
        std::iter::from_fn(move || {
            while let Some(l) = stack.pop() {
                if l.is_none() {
                    continue;
                }
                let c = self.locs[l];
                if c.inner.is_none() {
                    stack.push(c.inlined_at);
                    return Some((c.func, c.ordinal));
                }
                stack.push(c.inlined_at);
                stack.push(c.inner);
            }
            None
        })
    }

    /// Formats location `loc` as LLVM formats a call site (`f:3 @ g:1`), innermost first,
    /// with call ordinals for lines; summaries know no columns or discriminators, so a
    /// column format prints `:0` and the discriminator (0) is left out, as LLVM leaves
    /// out a zero one.
    pub fn format_loc(&self, loc: LocIdx, format: CallSiteFormat) -> String {
        let mut out = String::new();
        for (func, ordinal) in self.loc_chain(loc) {
            if !out.is_empty() {
                out.push_str(" @ ");
            }
            out.push_str(&self.names[func]);
            out.push(':');
            out.push_str(&ordinal.to_string());
            // no column, and a discriminator of 0, which LLVM leaves out
            if format.output_column() {
                out.push_str(":0");
            }
        }
        out
    }

    /// Heap bytes the summaries hold (their tables; what the memory cap counts).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let calls: usize = self
            .calls
            .iter()
            .map(|c| c.capacity() * size_of::<CallSummary>())
            .sum();
        let refs: usize = self
            .refs
            .iter()
            .map(|r| r.capacity() * size_of::<NodeIdx>())
            .sum();
        calls
            + refs
            + self.locs.capacity() * size_of::<CallLoc>()
            + self.history.capacity() * size_of::<(NodeIdx, HistIdx)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::Module;
    fn parse(file: &str, text: &str) -> Module {
        Module::from_ll_str(file, text).unwrap()
    }

    #[test]
    fn kernels_attrs_and_memory() {
        let text = "define internal void @leaf(ptr %p) #0 {\n  %v = load i32, ptr %p, align 4\n  ret void\n}\n\
                    define ptx_kernel void @k(ptr %p) {\n  call void @leaf(ptr %p)\n  store i32 1, ptr %p, align 4\n  ret void\n}\n\
                    define void @annotated() {\n  %a = alloca i32, align 4\n  store i32 0, ptr %a, align 4\n  ret void\n}\n\
                    declare void @ext() #1\n\
                    attributes #0 = { alwaysinline }\nattributes #1 = { readnone }\n\
                    !nvvm.annotations = !{!0}\n!0 = !{ptr @annotated, !\"kernel\", i32 1}\n";
        let m = parse("t.ll", text);
        let s = Summaries::from_module(&m);
        let n = NodeIdx::from_raw;
        assert_eq!(s.is_kernel.raw(), vec![false, true, true, false]);
        assert!(s.always_inline[n(0)] && !s.always_inline[n(1)]);
        assert_eq!(
            s.local_mem.raw(),
            vec![
                MemEffect::Read,
                MemEffect::Write,
                MemEffect::None,
                MemEffect::None
            ]
        );
        assert_eq!(s.calls[n(1)][0].callee, CallTarget::Function(n(0)));
        assert_eq!(s.calls[n(1)][0].arg_count, 1);
        assert_eq!(s.instructions[n(1)], 3);
        assert_eq!(
            s.format_loc(s.calls[n(1)][0].loc, CallSiteFormat::LineColumn),
            "k:1:0"
        );
    }

    #[test]
    fn rebased_locations_chain() {
        let text = "define void @a() {\n  call void @b()\n  ret void\n}\ndefine void @b() {\n  call void @c()\n  ret void\n}\ndefine void @c() {\n  ret void\n}\n";
        let m = parse("t.ll", text);
        let mut s = Summaries::from_module(&m);
        let at = s.calls[NodeIdx::new(0)][0].loc;
        let inner = s.calls[NodeIdx::new(1)][0].loc;
        let l = s.rebase_loc(inner, at);
        assert_eq!(s.format_loc(l, CallSiteFormat::Line), "b:1 @ a:1");
    }
}
