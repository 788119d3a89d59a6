//! Derived columns: values the world computes from an entry and keeps true through every
//! setter that could change them (the typed setters' `row_changed`, the edge setters'
//! `edge_changed`, string stores, bulk builds). Declared with the schema
//! (`KindDef::derived`); `Il::verify` recomputes and compares them.
//!
//! `constant.share_key` is the exact key of constant sharing's memo, 16 bytes: for a plain
//! leaf constant (integer, float, complex, imaginary: no `expr` or `template_info` child,
//! not `is_shared`, flag bit 0x02 clear, `value2` zero, no text) `[head, value]`; for a string
//! literal `[head, hash of (length, char kind, bytes)]`; `head` is the constant kind,
//! `ptm_flags << 8`, [`SHARE_KEY_FILE_SCOPE`] for an entry in the file-scope region (what
//! the sharing counters tell apart; not part of the memo's key), and the type child's
//! dense index `<< 32`. Anything else (a complex constant with an imaginary part too) has
//! [`NO_SHARE_KEY`] and takes the structural path. Identical keys of leaf constants imply
//! equal constants; string keys do not (the memo confirms a hit by the bytes).

use super::{fields as F, ConstantKind, Eix, EntryKind, Il, RegionIdx};

/// The share key of a constant the memo does not answer for (no memo key has head 0: the
/// kinds with a key are not 0).
pub(crate) const NO_SHARE_KEY: [u64; 2] = [0; 2];

/// The bit of a share key's head set for an entry in the file-scope region.
pub(crate) const SHARE_KEY_FILE_SCOPE: u64 = 1 << 16;

/// Makes a share key copied from a constant elsewhere right for a clone in region `r`:
/// only the file-scope bit of its head can differ ([`NO_SHARE_KEY`] stays as it is).
#[inline(always)]
pub(crate) fn rescope_share_key(key: &mut [u64; 2], r: RegionIdx) {
    if *key != NO_SHARE_KEY {
        let fs = if r == RegionIdx::FILE_SCOPE {
            SHARE_KEY_FILE_SCOPE
        } else {
            0
        };
        key[0] = (key[0] & !SHARE_KEY_FILE_SCOPE) | fs;
    }
}

/// The hasher of string literals' bytes in share keys (fixed seeds: keys are part of the
/// world, not of one sharing table).
fn text_hasher() -> ahash::RandomState {
    ahash::RandomState::with_seeds(
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    )
}

impl Il {
    /// Recomputes `e`'s derived columns (a no-op for kinds without any).
    #[inline(always)]
    pub(super) fn refresh_derived(&mut self, kind: EntryKind, e: Eix) {
        if kind == EntryKind::Constant {
            let key = self.compute_share_key(e);
            let r = self.row(e) as usize;
            self.tables.constant.share_key[r] = key;
        }
    }

    /// The share key of constant `e` as its columns and edges are now (see the module
    /// docs). Every setter of a constant calls this: it reads the row's columns and the
    /// three single slots it needs directly (single slots sit at fixed offsets from the
    /// block's start).
    #[inline]
    pub(super) fn compute_share_key(&self, e: Eix) -> [u64; 2] {
        let r = self.cols.row[e.idx()] as usize;
        let t = &self.tables.constant;
        let k = t.constant_kind[r];
        let flags = t.ptm_flags[r];
        let leaf = k.is_leaf() && t.value2[r] == 0 && t.text_len[r] == 0;
        if !(leaf || k == ConstantKind::String) || t.is_shared[r] || flags & 0x02 != 0 {
            return NO_SHARE_KEY;
        }
        let s = self.cols.start[e.idx()] as usize;
        let slot = |f: super::ChildField| self.edges[s + f.slot as usize];
        if !slot(F::CONSTANT_EXPR).is_none() || !slot(F::CONSTANT_TEMPLATE_INFO).is_none() {
            return NO_SHARE_KEY;
        }
        let ty = slot(F::CONSTANT_TYPE);
        let fs = if self.cols.region.get(e.idx()) == RegionIdx::FILE_SCOPE.raw() {
            SHARE_KEY_FILE_SCOPE
        } else {
            0
        };
        let head = k as u64 | ((flags as u64) << 8) | fs | ((ty.raw() as u64) << 32);
        if leaf {
            return [head, t.value[r] as u64];
        }
        let shape = t.text_len[r] as u64 | ((t.sub_kind[r] as u64) << 32);
        [head, text_hasher().hash_one((shape, self.string_text(e)))]
    }

    /// The `text_len` bytes of string constant `e`.
    #[inline]
    pub(crate) fn string_text(&self, e: Eix) -> &[u8] {
        let c = self.constant(e);
        let s = c.text();
        &s[..(c.text_len() as usize).min(s.len())]
    }

    /// The share key of live constant `e` (see the module docs).
    #[inline]
    pub(crate) fn share_key(&self, e: Eix) -> [u64; 2] {
        self.tables.constant.share_key[self.row(e) as usize]
    }
}
