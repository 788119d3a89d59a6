//! The IL walker: `walk_file_scope_il`, `walk_entry_and_subtree` and
//! `walk_routine_scope_il` (seed 000), driven by the schema's edge layout.
//!
//! # Callbacks
//! The seed's five global callback slots become a [`Callbacks`] value passed to the walk:
//! the entry visitor (may return a replacement), the string visitor (string kind 24/25/26
//! and byte length: strlen+1 for 24 and 26, the constant's own length for 25), the
//! pre-walk check (true skips the subtree), entry replace (remaps a child reference before
//! it is descended into) and entry filter (on list members; `None` removes the member).
//! Which slots are "installed" is a compile-time constant of the implementation, so an
//! uninstalled slot costs nothing, and the walk is monomorphized: no per-edge indirect call.
//! Walk state (the visited stamps, the stack, the mode flags) lives in the [`Walker`], not
//! in globals: a callback can start a nested walk with another `Walker` and the outer
//! walk carries on unchanged.
//!
//! # Entry protocol
//! With a pre-walk check installed, it decides. Without one, file-scope entries are skipped
//! during routine-scope walks, and a per-walk stamp (an epoch per entry, the data-oriented
//! form of the seed's region toggle) makes sure no entry is visited twice in one walk while
//! consecutive walks need no clearing pass. A file-scope walk of secondary IL without a
//! pre-walk check is refused (the seed's assertion at il_walk.c:270).
//!
//! # Order
//! Per entry: its string fields, then its single children in slot order, then its lists
//! in order (member by member), then its references (remapped, not descended) — each
//! child's subtree is walked completely before the next child, exactly as a recursive walk
//! would, but with an explicit stack: a 10^6-deep expression chain walks in constant native
//! stack. Constants follow the seed's sub-switch on the constant kind. O(entries + edges).

use crate::il::schema::{PHASE5_WALK_ORDER, PHASE6_WALK_ORDER};
use crate::il::{fields as F, ConstantKind, Eix, EntryId, EntryKind, Flag, Il};
use std::io::Write;

/// The callback protocol of a walk. Each `HAS_*` constant says whether the slot is
/// installed (the seed's non-NULL function pointer); uninstalled slots are never called.
pub trait Callbacks {
    /// Entry visitor installed.
    const HAS_ENTRY: bool = false;
    /// String visitor installed.
    const HAS_STRING: bool = false;
    /// Pre-walk check installed.
    const HAS_PRE_WALK: bool = false;
    /// Entry replace installed.
    const HAS_REPLACE: bool = false;
    /// Entry filter installed.
    const HAS_FILTER: bool = false;
    /// Whether a list member the filter rejects is removed from its list (the seed's
    /// behaviour) or only skipped (readers of the IL such as display and the binary
    /// writer, which must not change the world they read).
    const FILTER_REMOVES: bool = true;

    /// Called once per visited entry, before its children; a returned entry replaces it in
    /// its parent and is walked instead.
    fn entry(&mut self, _il: &mut Il, _e: Eix, _kind: EntryKind) -> Option<Eix> {
        None
    }
    /// Called per string field: the bytes, the string kind (24, 25, 26) and the byte length
    /// the seed passes (strlen+1 for 24/26, the explicit length for 25).
    fn string(&mut self, _il: &Il, _bytes: &[u8], _string_kind: u8, _len: usize) {}
    /// Called before descending; `true` skips the subtree.
    fn pre_walk_check(&mut self, _il: &mut Il, _e: Eix, _kind: EntryKind) -> bool {
        false
    }
    /// Remaps a child reference before it is descended into.
    fn entry_replace(&mut self, _il: &mut Il, e: Eix, _kind: EntryKind) -> Eix {
        e
    }
    /// Filters a list member: `None` removes it from the list.
    fn entry_filter(&mut self, _il: &mut Il, e: Eix, _kind: EntryKind) -> Option<Eix> {
        Some(e)
    }
}

/// A walk failure: a bad sub-kind (with the seed's message) or a refused walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    /// The seed's message.
    pub message: &'static str,
    /// The entry being walked, if any.
    pub entry: Option<EntryId>,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for WalkError {}

/// Name of a string kind as the trace prints it.
pub fn string_kind_name(k: u8) -> &'static str {
    match k {
        24 => "id name",
        25 => "string text",
        _ => "other text",
    }
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Strings,
    Singles,
    Lists,
}

/// A suspended entry: its phase, the slot or list it is at (`i`), the member of that
/// list (`j`), and where that list starts among its children (`off`).
#[derive(Clone, Copy, Debug)]
struct Frame {
    e: Eix,
    j: u32,
    off: u32,
    i: u16,
    phase: Phase,
}

impl Frame {
    fn new(e: Eix) -> Frame {
        Frame {
            e,
            j: 0,
            off: 0,
            i: 0,
            phase: Phase::Strings,
        }
    }
}

/// What the constant sub-switch does with a constant's `operand`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    Skip,
    Descend,
    Remap,
}

/// Walk state: visited stamps, the frame stack, mode flags and trace settings. Keep one
/// around to make consecutive walks cheap (no clearing pass between walks).
#[derive(Default)]
pub struct Walker {
    stamp: Vec<u32>,
    epoch: u32,
    stack: Vec<Frame>,
    is_file_scope_walk: bool,
    mode_flags: u32,
    /// Trace verbosity; above 4 each entry and string is traced.
    pub verbosity: u8,
    /// Where trace lines go.
    pub trace: Option<Box<dyn Write>>,
}

impl std::fmt::Debug for Walker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walker")
            .field("epoch", &self.epoch)
            .field("stack_depth", &self.stack.len())
            .field("mode_flags", &self.mode_flags)
            .field("verbosity", &self.verbosity)
            .field("tracing", &self.trace.is_some())
            .finish()
    }
}

impl Walker {
    /// A fresh walker.
    pub fn new() -> Walker {
        Walker::default()
    }

    /// A walker that traces to `out` at `verbosity`.
    pub fn with_trace(verbosity: u8, out: Box<dyn Write>) -> Walker {
        Walker {
            verbosity,
            trace: Some(out),
            ..Walker::default()
        }
    }

    fn begin(&mut self, il: &Il) {
        if self.stamp.len() < il.capacity() {
            self.stamp.resize(il.capacity(), 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.stack.clear();
    }

    fn trace_line(&mut self, what: &str, name: &str) {
        if self.verbosity > 4 {
            if let Some(t) = self.trace.as_mut() {
                let _ = writeln!(t, "Walking IL tree, {what} = {name}");
            }
        }
    }

    /// `walk_file_scope_il`: phases 1–6 of the seed in order. `mode_flags` nonzero strips
    /// template info from constants as they are walked.
    ///
    /// # Errors
    /// A bad constant sub-kind (the seed's messages), or an unguarded walk of secondary IL.
    pub fn walk_file_scope_il<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        mode_flags: u32,
    ) -> Result<(), WalkError> {
        self.begin(il);
        self.is_file_scope_walk = true;
        self.mode_flags = mode_flags;
        // Phase 1: the primary scope.
        if let Some(ps) = il.primary_scope {
            let mut e = il.eix(ps).map_err(|_| WalkError {
                message: "walk_file_scope_il: stale primary scope",
                entry: Some(ps),
            })?;
            if C::HAS_REPLACE {
                e = cb.entry_replace(il, e, EntryKind::Scope);
                il.primary_scope = Some(il.id_of(e));
            }
            if !C::HAS_PRE_WALK && il.flag(e, Flag::SecondaryIl) {
                return Err(WalkError { message: "walk_file_scope_il: walk into secondary IL without a pre-walk check (il_walk.c:270)", entry: Some(ps) });
            }
            self.walk_root(il, cb, e)?;
        }
        // Phase 2: the top-level source files (their child files hang below them).
        let mut nested = vec![false; il.capacity()];
        for f in il.kind_list(EntryKind::SourceFileEntry) {
            for &c in il.list_eix(f, F::SOURCE_FILE_ENTRY_CHILD_FILES) {
                nested[c.idx()] = true;
            }
        }
        let top: Vec<Eix> = il
            .kind_list(EntryKind::SourceFileEntry)
            .filter(|f| !nested[f.idx()])
            .collect();
        drop(nested);
        for f in top {
            if C::HAS_FILTER && cb.entry_filter(il, f, EntryKind::SourceFileEntry).is_none() {
                continue;
            }
            self.walk_root(il, cb, f)?;
        }
        // Phase 3: main routine, compiler version, time of compilation.
        if C::HAS_REPLACE {
            if let Some(m) = il.main_routine.and_then(|m| il.eix(m).ok()) {
                let r = cb.entry_replace(il, m, EntryKind::Routine);
                il.main_routine = Some(il.id_of(r));
            }
        }
        for which in 0..2 {
            let s = if which == 0 {
                il.compiler_version.take()
            } else {
                il.time_of_compilation.take()
            };
            if let Some(bytes) = &s {
                self.trace_line("string entry kind", "other text");
                if C::HAS_STRING {
                    cb.string(il, bytes, 26, bytes.len() + 1);
                }
            }
            if which == 0 {
                il.compiler_version = s;
            } else {
                il.time_of_compilation = s;
            }
        }
        // Phase 4: orphaned entities.
        self.walk_list_phase(il, cb, EntryKind::OrphanedEntities, true, false)?;
        // Phase 5: the global per-kind lists, in the seed's order.
        for k in PHASE5_WALK_ORDER {
            self.walk_list_phase(il, cb, EntryKind::ALL[k as usize], false, true)?;
        }
        // Phase 6: trailing lists (64, the external type list, 83).
        for k in PHASE6_WALK_ORDER {
            if k == EntryKind::Type as u8 {
                let ext: Vec<Eix> = il.external_types().collect();
                for e in ext {
                    if C::HAS_FILTER && cb.entry_filter(il, e, EntryKind::Type).is_none() {
                        continue;
                    }
                    self.walk_root(il, cb, e)?;
                }
            } else {
                self.walk_list_phase(il, cb, EntryKind::ALL[k as usize], true, false)?;
            }
        }
        Ok(())
    }

    fn walk_list_phase<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        kind: EntryKind,
        filter: bool,
        replace: bool,
    ) -> Result<(), WalkError> {
        if !kind.has_table() {
            return Ok(());
        }
        let list: Vec<Eix> = il.kind_list(kind).collect();
        for mut e in list {
            if filter && C::HAS_FILTER && cb.entry_filter(il, e, kind).is_none() {
                continue;
            }
            if replace && C::HAS_REPLACE {
                e = cb.entry_replace(il, e, kind);
            }
            self.walk_root(il, cb, e)?;
        }
        Ok(())
    }

    /// `walk_routine_scope_il`: walks a routine's body scope with file-scope entries
    /// skipped (is_file_scope_walk = false).
    pub fn walk_routine_scope_il<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        routine: EntryId,
    ) -> Result<(), WalkError> {
        self.begin(il);
        self.is_file_scope_walk = false;
        self.mode_flags = 0;
        let r = il.eix(routine).map_err(|_| WalkError {
            message: "walk_routine_scope_il: stale routine",
            entry: Some(routine),
        })?;
        if il.kind(r) != EntryKind::Routine {
            return Err(WalkError {
                message: "walk_routine_scope_il: not a routine",
                entry: Some(routine),
            });
        }
        if let Some(mut scope) = il.child_eix(r, F::ROUTINE_BODY_SCOPE) {
            if C::HAS_REPLACE {
                scope = cb.entry_replace(il, scope, EntryKind::Scope);
            }
            self.walk_root(il, cb, scope)?;
        }
        Ok(())
    }

    /// `walk_entry_and_subtree` on one entry, as its own walk (fresh stamps).
    pub fn walk_entry_and_subtree<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        e: Eix,
    ) -> Result<(), WalkError> {
        self.begin(il);
        self.is_file_scope_walk = true;
        self.walk_root(il, cb, e)
    }

    /// The entry protocol; returns the entry to descend into, if any.
    #[inline]
    fn enter<C: Callbacks>(&mut self, il: &mut Il, cb: &mut C, e: Eix) -> Option<Eix> {
        let kind = il.kind(e);
        if C::HAS_PRE_WALK {
            if cb.pre_walk_check(il, e, kind) {
                return None;
            }
        } else {
            if !self.is_file_scope_walk && il.flag(e, Flag::FileScope) {
                return None;
            }
            if self.stamp.len() <= e.idx() {
                self.stamp.resize(il.capacity(), 0);
            }
            if self.stamp[e.idx()] == self.epoch {
                return None;
            }
            self.stamp[e.idx()] = self.epoch;
        }
        if self.verbosity > 4 {
            self.trace_line("entry kind", kind.name());
        }
        if C::HAS_ENTRY {
            if let Some(r) = cb.entry(il, e, kind) {
                return Some(r);
            }
        }
        Some(e)
    }

    fn walk_root<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        e: Eix,
    ) -> Result<(), WalkError> {
        if let Some(e) = self.enter(il, cb, e) {
            self.stack.push(Frame::new(e));
            self.run(il, cb)?;
        }
        Ok(())
    }

    /// Runs the stack to empty. The top frame is worked in tight loops over its slots and
    /// list members until a child is pushed (its position is saved in the frame and the
    /// child runs next) or the frame is done; a frame looks up its kind, layout and list
    /// bounds once per resumption, not once per edge.
    fn run<C: Callbacks>(&mut self, il: &mut Il, cb: &mut C) -> Result<(), WalkError> {
        const TEMPLATE_INFO: u32 = F::CONSTANT_TEMPLATE_INFO.slot;
        const OPERAND: u32 = F::CONSTANT_OPERAND.slot;
        'frames: while let Some(&fr) = self.stack.last() {
            let depth = self.stack.len();
            let e = fr.e;
            let kind = il.kind(e);
            let layout = kind.layout();
            let (mut phase, mut i, mut j, mut off) = (fr.phase, fr.i, fr.j, fr.off);
            if let Phase::Strings = phase {
                // Strings are looked at only for a string visitor or the trace.
                if !layout.strings.is_empty() && (C::HAS_STRING || self.verbosity > 4) {
                    self.visit_strings(il, cb, e, kind);
                }
                phase = Phase::Singles;
                i = 0;
            }
            if let Phase::Singles = phase {
                if i == 0 && kind == EntryKind::Constant {
                    // The sub-switch validates the constant kind whatever the operand.
                    constant_operand(il, e)?;
                }
                while (i as usize) < layout.singles.len() {
                    let slot = i;
                    i += 1;
                    let Some(c) = il.children(e).get(slot as usize).copied() else {
                        continue;
                    };
                    if c.is_none() {
                        continue;
                    }
                    let mut how = Operand::Descend;
                    if kind == EntryKind::Constant {
                        if slot as u32 == TEMPLATE_INFO && self.mode_flags != 0 {
                            il.replace_child_at(e, slot as usize, Eix::NONE);
                            continue;
                        }
                        if slot as u32 == OPERAND {
                            how = constant_operand(il, e)?;
                        }
                    }
                    self.visit_child(il, cb, e, slot as usize, c, how);
                    if self.stack.len() > depth {
                        self.stack[depth - 1] = Frame {
                            e,
                            j,
                            off,
                            i,
                            phase,
                        };
                        continue 'frames;
                    }
                }
                phase = Phase::Lists;
                i = 0;
                j = 0;
                off = layout.singles.len() as u32;
            }
            if let Phase::Lists = phase {
                // `off` is where list `i` starts among the children: only this entry's
                // filter changes the lengths of its lists, and only of the current one.
                while (i as usize) < layout.lists.len() {
                    let mut len = il.list_lengths(e)[i as usize].raw();
                    while j < len {
                        let at = (off + j) as usize;
                        let c = il.children(e)[at];
                        if C::HAS_FILTER && cb.entry_filter(il, c, il.kind(c)).is_none() {
                            if C::FILTER_REMOVES {
                                // The next member moves into this position.
                                il.remove_list_item(e, i as u32, j as usize);
                                len -= 1;
                            } else {
                                j += 1;
                            }
                            continue;
                        }
                        j += 1;
                        self.visit_child(il, cb, e, at, c, Operand::Descend);
                        if self.stack.len() > depth {
                            self.stack[depth - 1] = Frame {
                                e,
                                j,
                                off,
                                i,
                                phase,
                            };
                            continue 'frames;
                        }
                    }
                    off += len;
                    i += 1;
                    j = 0;
                }
            }
            // References: remapped, never descended.
            if C::HAS_REPLACE {
                for i in 0..layout.refs.len() {
                    let r = il.refs(e)[i];
                    if !r.is_none() {
                        let nr = cb.entry_replace(il, r, il.kind(r));
                        if nr != r {
                            il.replace_ref_at(e, i, nr);
                        }
                    }
                }
            }
            self.stack.pop();
        }
        Ok(())
    }

    /// The string visitor over `e`'s string fields (string_text only for a string
    /// constant, with its own length; the other kinds with strlen + 1).
    fn visit_strings<C: Callbacks>(&mut self, il: &mut Il, cb: &mut C, e: Eix, kind: EntryKind) {
        let layout = kind.layout();
        let strs = il.string_handles(e);
        for (i, info) in layout.strings.iter().enumerate() {
            let s = strs.as_slice()[i];
            if !s.is_some() {
                continue;
            }
            let len = if info.string_kind == EntryKind::StringText as u8 {
                if kind == EntryKind::Constant
                    && il.constant(e).constant_kind() != ConstantKind::String
                {
                    continue;
                }
                s.len as usize
            } else {
                s.len as usize + 1
            };
            self.trace_line("string entry kind", string_kind_name(info.string_kind));
            if C::HAS_STRING {
                let shared: &Il = il;
                cb.string(shared, shared.str_bytes(e, s), info.string_kind, len);
            }
        }
    }

    /// Replace, then (for descended children) enter and push.
    #[inline]
    fn visit_child<C: Callbacks>(
        &mut self,
        il: &mut Il,
        cb: &mut C,
        parent: Eix,
        pos: usize,
        mut c: Eix,
        how: Operand,
    ) {
        if how == Operand::Skip {
            return;
        }
        if C::HAS_REPLACE {
            let nc = cb.entry_replace(il, c, il.kind(c));
            if nc != c {
                il.replace_child_at(parent, pos, nc);
                c = nc;
            }
        }
        if how == Operand::Remap || c.is_none() {
            return;
        }
        if let Some(v) = self.enter(il, cb, c) {
            if v != c {
                il.replace_child_at(parent, pos, v);
            }
            self.stack.push(Frame::new(v));
        }
    }
}

/// The seed's sub-switch on constant `e`'s kind: what happens to its `operand` (an
/// error for a bad sub-kind, whatever the operand holds).
pub(super) fn constant_operand(il: &Il, e: Eix) -> Result<Operand, WalkError> {
    use ConstantKind as C;
    let c = il.constant(e);
    let err = |message| WalkError {
        message,
        entry: Some(il.id_of(e)),
    };
    Ok(match c.constant_kind() {
        C::Error | C::Integer | C::String | C::Float | C::Imaginary | C::Aggregate | C::Void => {
            Operand::Skip
        }
        C::Complex
        | C::LabelDifference
        | C::DynamicInit
        | C::InitRepeat
        | C::Designator
        | C::Reflection => Operand::Descend,
        C::Address => match c.address_kind() {
            Some(a) if a.owns_operand() => Operand::Descend,
            Some(_) => Operand::Remap,
            None => return Err(err("walk_entry_and_subtree: bad address const kind")),
        },
        C::PtrToMember => Operand::Remap,
        C::TemplateParam => {
            if c.template_param_constant_kind().is_none() {
                return Err(err(
                    "walk_entry_and_subtree: bad template param constant kind",
                ));
            }
            Operand::Descend
        }
    })
}

/// Convenience: a file-scope walk with a fresh [`Walker`].
pub fn walk_file_scope_il<C: Callbacks>(
    il: &mut Il,
    cb: &mut C,
    mode_flags: u32,
) -> Result<(), WalkError> {
    Walker::new().walk_file_scope_il(il, cb, mode_flags)
}

/// `find_parent_var_of_anon_union_type`: the variable whose type is the anonymous union
/// `union_type`, searched in `scope` and its nested scopes.
///
/// # Errors
/// "find_parent_var_of_anon_union_type: var not found".
pub fn find_parent_var_of_anon_union_type(
    il: &Il,
    scope: EntryId,
    union_type: EntryId,
) -> Result<EntryId, WalkError> {
    let not_found = WalkError {
        message: "find_parent_var_of_anon_union_type: var not found",
        entry: Some(union_type),
    };
    let (Ok(s), Ok(t)) = (il.eix(scope), il.eix(union_type)) else {
        return Err(not_found);
    };
    find_in_scopes(il, s, |v| il.child_eix(v, F::VARIABLE_TYPE) == Some(t))
        .map(|v| il.id_of(v))
        .ok_or(not_found)
}

/// `find_var_in_nested_scopes`: the first variable named `name` in `scope` or any scope
/// nested in it (breadth-first, iteratively).
pub fn find_var_in_nested_scopes(il: &Il, scope: EntryId, name: &[u8]) -> Option<EntryId> {
    let s = il.eix(scope).ok()?;
    find_in_scopes(il, s, |v| il.name(v) == name).map(|v| il.id_of(v))
}

fn find_in_scopes(il: &Il, root: Eix, pred: impl Fn(Eix) -> bool) -> Option<Eix> {
    let mut queue = std::collections::VecDeque::from([root]);
    let mut seen = ahash::AHashSet::new();
    while let Some(s) = queue.pop_front() {
        if il.kind(s) != EntryKind::Scope || !seen.insert(s) {
            continue;
        }
        if let Some(&v) = il
            .list_eix(s, F::SCOPE_VARIABLES)
            .iter()
            .find(|&&v| pred(v))
        {
            return Some(v);
        }
        queue.extend(il.list_eix(s, F::SCOPE_SCOPES).iter().copied());
        for &ns in il.list_eix(s, F::SCOPE_NAMESPACES) {
            queue.extend(il.child_eix(ns, F::NAMESPACE_SCOPE));
        }
        for &t in il.list_eix(s, F::SCOPE_TYPES) {
            queue.extend(il.child_eix(t, F::TYPE_SCOPE));
        }
        if let Some(b) = il.child_eix(s, F::SCOPE_BLOCK) {
            // Block statements may own nested scopes.
            let mut stack = vec![b];
            while let Some(st) = stack.pop() {
                queue.extend(il.child_eix(st, F::STATEMENT_SCOPE));
                stack.extend(il.list_eix(st, F::STATEMENT_STMTS).iter().copied());
            }
        }
    }
    None
}
