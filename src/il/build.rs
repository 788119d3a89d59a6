//! Index builders: an entry made in one call from values and children known up front,
//! speaking dense indices ([`Eix`]) and minting no [`EntryId`](super::EntryId) (callers
//! that need one ask [`Il::id_of`]).
//!
//! A built entry is the entry the single-step path gives (allocation, kind setter, field
//! setters, list pushes, in that order): the same dense index and row, region, flags,
//! position, counters and lists, and an equal edge block. Its block is written once at the
//! end of the pool, so no list push relocates it. O(1 + children).

use super::kinds::OP2_OPERATION_DEFAULT;
use super::world::FreeListKind;
use super::{fields as F, Eix, EntryKind, ExprKind, ExprNodeRow, Il, IlError, Op};

impl Il {
    /// An expression node of kind `kind` with operator `op`, type `ty` (`Eix::NONE` for
    /// none) and `operands`, in the current region: `alloc_expr_node(kind)`, then its
    /// operator, type and operand pushes, in one step (the operation's `op2` default and
    /// the supplement counters as `set_expr_node_kind` sets them). Constant and entity
    /// slots start empty ([`Il::set_child_eix`], [`Il::set_ref_eix`] fill them in place).
    ///
    /// # Errors
    /// [`IlError::BadKind`] for [`ExprKind::Reclaimed`]; [`IlError::WrongTarget`] for a
    /// type that is not a live type or an operand that is not a live expression (nothing
    /// is allocated then).
    #[inline]
    pub fn push_expr(
        &mut self,
        kind: ExprKind,
        op: Op,
        ty: Eix,
        operands: &[Eix],
    ) -> Result<Eix, IlError> {
        if kind == ExprKind::Reclaimed {
            return Err(IlError::BadKind("set_expr_node_kind: bad kind"));
        }
        if !ty.is_none() {
            self.check_live_target(F::EXPR_NODE_TYPE.target, ty)?;
        }
        for &o in operands {
            if self.cols.kind.get(o.idx()) != Some(&EntryKind::ExprNode) {
                self.check_live_target(F::EXPR_NODE_OPERANDS.target, o)?;
            }
        }
        if !(self.free_lists[FreeListKind::ExprNode as usize].is_empty()
            & self.free_rows[EntryKind::ExprNode as usize].is_empty()
            & self.no_free_dense_slot())
        {
            // A reclaimed node, a freed row or a freed dense index is reused first: the
            // single-step path handles that.
            return self.push_expr_by_steps(kind, op, ty, operands);
        }
        let r = self.current;
        let op2 = if kind == ExprKind::Operation {
            OP2_OPERATION_DEFAULT
        } else {
            0
        };
        let e = Eix::new(self.cols.len());
        let word = ExprNodeRow::pack_word(kind, op, op2, false);
        // A new row: its two columns pushed directly (the generated row push is a call).
        let t = &mut self.tables.expr_node;
        let row = t.eix.len() as u32;
        t.eix.push(e);
        t.word.push(word);
        // The block: [entity][operand count][type, constant][operands].
        let start = (self.edges.len() + 2) as u32;
        append_block(
            &mut self.edges,
            [Eix::NONE, Eix::new(operands.len()), ty, Eix::NONE],
            operands,
        );
        let pos = self.cursor_index();
        let pushed = self.push_dense(EntryKind::ExprNode, row, r, start, pos);
        debug_assert_eq!(pushed, e);
        self.stamp_and_enlist(EntryKind::ExprNode, e, r);
        self.count_expr_supplement(kind);
        Ok(e)
    }

    /// [`Il::push_expr`] the long way (reusing a reclaimed node).
    #[cold]
    fn push_expr_by_steps(
        &mut self,
        kind: ExprKind,
        op: Op,
        ty: Eix,
        operands: &[Eix],
    ) -> Result<Eix, IlError> {
        let id = self.alloc_expr_node(kind)?;
        let e = self.eix(id)?;
        self.expr_mut(e).set_op(op);
        self.set_child_eix(e, F::EXPR_NODE_TYPE, ty)?;
        for &o in operands {
            self.push_list_eix(e, F::EXPR_NODE_OPERANDS.list, o);
        }
        Ok(e)
    }

    /// The supplement counter `set_expr_node_kind` bumps for `kind`.
    #[inline(always)]
    fn count_expr_supplement(&mut self, kind: ExprKind) {
        let i = match kind {
            ExprKind::NewDelete => 0,
            ExprKind::Throw => 1,
            ExprKind::Condition => 2,
            _ => return,
        };
        self.counters.expr_supplements[i] += 1;
    }

    /// `c` is a live entry of `target`'s kind (any kind for `None`).
    #[inline(always)]
    fn check_live_target(&self, target: Option<EntryKind>, c: Eix) -> Result<(), IlError> {
        if !self.is_live(c) {
            return Err(IlError::WrongTarget {
                expected: target.unwrap_or(EntryKind::None),
                found: EntryKind::None,
            });
        }
        self.check_target(target, c)
    }
}

/// Appends `head`, then `tail`, to the pool: one capacity check, and the few elements of
/// `tail` written in a loop (a `memcpy` call would cost more than they do).
#[inline(always)]
fn append_block<const N: usize>(pool: &mut Vec<Eix>, head: [Eix; N], tail: &[Eix]) {
    let n = N + tail.len();
    pool.reserve(n);
    let at = pool.len();
    // SAFETY: `reserve` made room for `n` more elements past `at`; every one of them is
    // written before the length covers it; `Eix` is `Copy` (no drop, no double use).
    unsafe {
        let p = pool.as_mut_ptr().add(at);
        p.cast::<[Eix; N]>().write_unaligned(head);
        let mut q = p.add(N);
        for &x in tail {
            q.write(x);
            q = q.add(1);
        }
        pool.set_len(at + n);
    }
}
