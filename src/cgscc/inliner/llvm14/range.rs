//! The ranges InstSimplify decides a compare with a constant by, for integers of at
//! most 64 bits: LLVM's `ConstantRange` (a half-open, possibly wrapping interval) as
//! far as `simplifyICmpWithConstant` uses it, and the ranges `computeConstantRange`
//! gives a binary operator with a constant operand (`setLimitsForBinOp`) and a
//! min/max select (`setLimitsForSelectPattern`).
//!
//! `icmp ult (and %x, 63), 64` is true: inlining meets it when a callee's bounds check
//! is cloned with an argument the caller computed, and LLVM's cloner then drops the
//! failing branch — with the calls in it, which the inliner never visits.

use crate::llvm::ir::body::sext;
use crate::llvm::ir::{InstFlags, Opcode};

/// A set of `bits`-wide integers `[lo, hi)`, wrapping when `lo > hi`; `lo == hi` is
/// the full set when both are the maximum and the empty set when both are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Range {
    lo: u64,
    hi: u64,
    bits: u32,
}

/// All ones in the low `bits` bits (all 64 from 64 on).
pub(super) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Range {
    fn full(bits: u32) -> Range {
        let m = mask(bits);
        Range { lo: m, hi: m, bits }
    }

    fn empty(bits: u32) -> Range {
        Range { lo: 0, hi: 0, bits }
    }

    /// `[lo, hi)` (both truncated to the width); equal ends are the full set
    /// (`ConstantRange::getNonEmpty`).
    fn non_empty(lo: u64, hi: u64, bits: u32) -> Range {
        let (lo, hi) = (lo & mask(bits), hi & mask(bits));
        if lo == hi {
            Range::full(bits)
        } else {
            Range { lo, hi, bits }
        }
    }

    pub(super) fn is_full(&self) -> bool {
        self.lo == self.hi && self.lo == mask(self.bits)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lo == self.hi && self.lo == 0
    }

    /// `ConstantRange::contains(const ConstantRange &)`: every value of `o` is in `self`.
    pub(super) fn contains(&self, o: &Range) -> bool {
        if self.is_full() || o.is_empty() {
            return true;
        }
        if self.is_empty() || o.is_full() {
            return false;
        }
        let (wrapped, o_wrapped) = (self.lo > self.hi, o.lo > o.hi);
        match (wrapped, o_wrapped) {
            (false, true) => false,
            (false, false) => self.lo <= o.lo && o.hi <= self.hi,
            (true, false) => o.hi <= self.hi || self.lo <= o.lo,
            (true, true) => o.hi <= self.hi && self.lo <= o.lo,
        }
    }

    /// The values not in `self`.
    pub(super) fn inverse(&self) -> Range {
        if self.is_full() {
            Range::empty(self.bits)
        } else if self.is_empty() {
            Range::full(self.bits)
        } else {
            Range {
                lo: self.hi,
                hi: self.lo,
                bits: self.bits,
            }
        }
    }

    /// `ConstantRange::makeExactICmpRegion`: the values `x` with `icmp p x, c` true
    /// (`p` in LLVM's numbering, 32 `eq` to 41 `sle`).
    pub(super) fn exact_icmp(p: u8, c: i64, bits: u32) -> Range {
        let m = mask(bits);
        let c = c as u64 & m;
        let smin = 1u64 << (bits - 1);
        let smax = smin - 1;
        match p {
            32 => Range::non_empty(c, c.wrapping_add(1), bits),
            33 => Range::non_empty(c.wrapping_add(1), c, bits),
            36 if c == 0 => Range::empty(bits),
            36 => Range { lo: 0, hi: c, bits },
            37 => Range::non_empty(0, c.wrapping_add(1), bits),
            34 if c == m => Range::empty(bits),
            34 => Range::non_empty(c + 1, 0, bits),
            35 => Range::non_empty(c, 0, bits),
            40 if c == smin => Range::empty(bits),
            40 => Range::non_empty(smin, c, bits),
            41 => Range::non_empty(smin, c.wrapping_add(1), bits),
            38 if c == smax => Range::empty(bits),
            38 => Range::non_empty(c.wrapping_add(1), smin, bits),
            _ => Range::non_empty(c, smin, bits),
        }
    }

    /// `setLimitsForBinOp` (LLVM 14): the values of `op` on `x` and `y` given which of
    /// them is a constant, with the row's flags; a signed compare prefers the `nsw`
    /// range of an `add nuw nsw`. The full set when the operator tells nothing.
    pub(super) fn of_binop(
        (op, flags): (Opcode, InstFlags),
        (x, y): (Option<i64>, Option<i64>),
        bits: u32,
        prefer_signed: bool,
    ) -> Range {
        let m = mask(bits);
        let smin = 1u64 << (bits - 1);
        let smax = smin - 1;
        let u = |c: i64| c as u64 & m;
        let neg = |c: u64| c & smin != 0;
        // the bits-wide value as a signed number, and shifts within the width
        let s = |c: u64| sext(c as i64, bits);
        let ashr = |c: u64, k: u32| (s(c) >> k.min(63)) as u64 & m;
        let shl = |c: u64, k: u32| if k >= bits { 0 } else { (c << k) & m };
        let clz = |c: u64| c.leading_zeros() - (64 - bits);
        let clo = |c: u64| (c | !m).leading_ones() - (64 - bits);
        let tz = |c: u64| c.trailing_zeros().min(bits);
        let (nuw, nsw, exact) = (
            flags.has(InstFlags::NUW),
            flags.has(InstFlags::NSW),
            flags.has(InstFlags::EXACT),
        );
        let (mut lo, mut hi) = (0u64, 0u64);
        match op {
            Opcode::Add => {
                if let Some(c) = y.map(u).filter(|&c| c != 0) {
                    let nuw = nuw && !(prefer_signed && nsw);
                    if nuw {
                        lo = c;
                    } else if nsw && neg(c) {
                        (lo, hi) = (smin, smax.wrapping_add(c).wrapping_add(1));
                    } else if nsw {
                        (lo, hi) = (smin.wrapping_add(c), smax + 1);
                    }
                }
            }
            Opcode::And => {
                if let Some(c) = y.map(u) {
                    hi = c.wrapping_add(1);
                }
            }
            Opcode::Or => {
                if let Some(c) = y.map(u) {
                    lo = c;
                }
            }
            Opcode::AShr | Opcode::LShr => {
                let arith = op == Opcode::AShr;
                if let Some(k) = y.map(u).filter(|&k| k < bits as u64) {
                    let k = k as u32;
                    if arith {
                        (lo, hi) = (ashr(smin, k), ashr(smax, k).wrapping_add(1));
                    } else {
                        hi = (m >> k).wrapping_add(1);
                    }
                } else if let Some(c) = x.map(u) {
                    let k = if c != 0 && exact { tz(c) } else { bits - 1 };
                    (lo, hi) = match (arith, neg(c)) {
                        (true, true) => (c, ashr(c, k).wrapping_add(1)),
                        (true, false) => (ashr(c, k), c.wrapping_add(1)),
                        (false, _) => (c >> k, c.wrapping_add(1)),
                    };
                }
            }
            Opcode::Shl => {
                if let Some(c) = x.map(u) {
                    if nuw {
                        (lo, hi) = (c, shl(c, clz(c)).wrapping_add(1));
                    } else if nsw && neg(c) {
                        (lo, hi) = (shl(c, clo(c) - 1), c.wrapping_add(1));
                    } else if nsw {
                        (lo, hi) = (c, shl(c, clz(c).saturating_sub(1)).wrapping_add(1));
                    }
                }
            }
            Opcode::SDiv => {
                if let Some(c) = y.map(u) {
                    if c == m {
                        (lo, hi) = (smin + 1, smax + 1);
                    } else if clz(c) + 1 < bits {
                        let (a, b) = (s(smin) / s(c), s(smax) / s(c));
                        let (a, b) = if a > b { (b, a) } else { (a, b) };
                        (lo, hi) = (a as u64 & m, (b as u64).wrapping_add(1) & m);
                    }
                } else if let Some(c) = x.map(u) {
                    if c == smin {
                        (lo, hi) = (c, (c >> 1) + 1);
                    } else {
                        let up = s(c).unsigned_abs() + 1;
                        (lo, hi) = (up.wrapping_neg().wrapping_add(1), up);
                    }
                }
            }
            Opcode::UDiv => {
                if let Some(c) = y.map(u).filter(|&c| c != 0) {
                    hi = (m / c).wrapping_add(1);
                } else if let Some(c) = x.map(u) {
                    hi = c.wrapping_add(1);
                }
            }
            Opcode::SRem => {
                if let Some(c) = y.map(u) {
                    let up = s(c).unsigned_abs() & m;
                    (lo, hi) = (up.wrapping_neg().wrapping_add(1), up);
                }
            }
            Opcode::URem => {
                if let Some(c) = y.map(u) {
                    hi = c;
                }
            }
            _ => {}
        }
        Range::non_empty(lo, hi, bits)
    }

    /// `setLimitsForSelectPattern` for an integer min or max of a value and constant
    /// `c`: `umin` `[0, c]`, `umax` `[c, UINT_MAX]`, `smin` `[SINT_MIN, c]`, `smax`
    /// `[c, SINT_MAX]`.
    pub(super) fn of_min_max(flavor: MinMax, c: i64, bits: u32) -> Range {
        let m = mask(bits);
        let c = c as u64 & m;
        let smin = 1u64 << (bits - 1);
        match flavor {
            MinMax::UMin => Range::non_empty(0, c.wrapping_add(1), bits),
            MinMax::UMax => Range::non_empty(c, 0, bits),
            MinMax::SMin => Range::non_empty(smin, c.wrapping_add(1), bits),
            MinMax::SMax => Range::non_empty(c, smin, bits),
        }
    }
}

/// The integer min/max flavours of `matchSelectPattern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MinMax {
    UMin,
    UMax,
    SMin,
    SMax,
}

impl MinMax {
    /// The flavour of `select (icmp p a, b), a, b` (`same_order`) or of
    /// `select (icmp p a, b), b, a`; none for `eq` and `ne`.
    pub(super) fn of(p: u8, same_order: bool) -> Option<MinMax> {
        let (max, min) = match p {
            34 | 35 => (MinMax::UMax, MinMax::UMin),
            36 | 37 => (MinMax::UMin, MinMax::UMax),
            38 | 39 => (MinMax::SMax, MinMax::SMin),
            40 | 41 => (MinMax::SMin, MinMax::SMax),
            _ => return None,
        };
        Some(if same_order { max } else { min })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::ir::Predicate;

    /// Every `bits`-wide value in `r`, by brute force over the width.
    fn members(r: &Range) -> Vec<u64> {
        (0..=mask(r.bits))
            .filter(|&v| {
                if r.is_full() {
                    true
                } else if r.is_empty() {
                    false
                } else if r.lo < r.hi {
                    r.lo <= v && v < r.hi
                } else {
                    v >= r.lo || v < r.hi
                }
            })
            .collect()
    }

    fn icmp8(p: u8, a: u64, c: u64) -> bool {
        super::super::simplify::icmp(Predicate(p), a as i64, c as i64, 8)
    }

    #[test]
    fn exact_regions_are_the_values_the_compare_holds_for() {
        for p in 32..=41u8 {
            for c in 0..256u64 {
                let r = Range::exact_icmp(p, c as u8 as i8 as i64, 8);
                let want: Vec<u64> = (0..256).filter(|&a| icmp8(p, a, c)).collect();
                assert_eq!(members(&r), want, "icmp {p} {c}");
                let inv: Vec<u64> = (0..256).filter(|&a| !icmp8(p, a, c)).collect();
                assert_eq!(members(&r.inverse()), inv, "inverse of icmp {p} {c}");
            }
        }
    }

    #[test]
    fn containment_is_set_inclusion() {
        let some = [
            (0, 0),
            (255, 255),
            (3, 9),
            (9, 3),
            (250, 4),
            (0, 128),
            (128, 0),
        ];
        for &(a, b) in &some {
            for &(c, d) in &some {
                let (r, o) = (
                    Range {
                        lo: a,
                        hi: b,
                        bits: 8,
                    },
                    Range {
                        lo: c,
                        hi: d,
                        bits: 8,
                    },
                );
                let (rm, om) = (members(&r), members(&o));
                assert_eq!(
                    r.contains(&o),
                    om.iter().all(|v| rm.contains(v)),
                    "{r:?} ⊇ {o:?}"
                );
            }
        }
    }

    /// Every result of the operator, over all 8-bit operands, lies in its range.
    #[test]
    fn binop_ranges_hold_every_result() {
        let ops = [
            Opcode::Add,
            Opcode::And,
            Opcode::Or,
            Opcode::AShr,
            Opcode::LShr,
            Opcode::Shl,
            Opcode::SDiv,
            Opcode::UDiv,
            Opcode::SRem,
            Opcode::URem,
        ];
        let flag_sets = [
            0,
            InstFlags::NUW,
            InstFlags::NSW,
            InstFlags::NUW | InstFlags::NSW,
            InstFlags::EXACT,
        ];
        for op in ops {
            for &f in &flag_sets {
                for c in 0..256i64 {
                    for const_left in [false, true] {
                        for prefer_signed in [false, true] {
                            let ci = sext(c, 8);
                            let consts = if const_left {
                                (Some(ci), None)
                            } else {
                                (None, Some(ci))
                            };
                            let r = Range::of_binop((op, InstFlags(f)), consts, 8, prefer_signed);
                            let rm = members(&r);
                            for v in 0..256i64 {
                                let (a, b) = if const_left { (c, v) } else { (v, c) };
                                if let Some(x) = eval8(op, f, a, b) {
                                    assert!(
                                        rm.contains(&x),
                                        "{op:?} {f:#x} {a} {b} = {x} not in {r:?}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// An 8-bit operator's result, none when it is poison or undefined (a wrap its
    /// flags forbid, an inexact shift, a division by zero or overflow, an over-wide
    /// shift).
    fn eval8(op: Opcode, f: u16, a: i64, b: i64) -> Option<u64> {
        let (ua, ub) = (a as u8, b as u8);
        let (sa, sb) = (ua as i8, ub as i8);
        let (nuw, nsw, exact) = (
            f & InstFlags::NUW != 0,
            f & InstFlags::NSW != 0,
            f & InstFlags::EXACT != 0,
        );
        let r: u8 = match op {
            Opcode::Add => {
                if (nuw && ua.checked_add(ub).is_none()) || (nsw && sa.checked_add(sb).is_none()) {
                    return None;
                }
                ua.wrapping_add(ub)
            }
            Opcode::And => ua & ub,
            Opcode::Or => ua | ub,
            Opcode::AShr | Opcode::LShr | Opcode::Shl if ub >= 8 => return None,
            Opcode::AShr => {
                let r = (sa >> ub) as u8;
                if exact && ((r as i8 as i16) << ub) as u8 != ua {
                    return None;
                }
                r
            }
            Opcode::LShr => {
                let r = ua >> ub;
                if exact && r << ub != ua {
                    return None;
                }
                r
            }
            Opcode::Shl => {
                let r = ua << ub;
                if (nuw && (r >> ub) != ua) || (nsw && ((r as i8) >> ub) != sa) {
                    return None;
                }
                r
            }
            Opcode::SDiv => sa.checked_div(sb)? as u8,
            Opcode::UDiv => ua.checked_div(ub)?,
            Opcode::SRem => sa.checked_rem(sb)? as u8,
            Opcode::URem => ua.checked_rem(ub)?,
            _ => return None,
        };
        Some(r as u64)
    }

    #[test]
    fn min_max_ranges_hold_every_result() {
        for c in 0..256i64 {
            for v in 0..256u64 {
                let (uc, sc, sv) = (c as u64, c as u8 as i8, v as u8 as i8);
                let cases = [
                    (MinMax::UMin, v.min(uc)),
                    (MinMax::UMax, v.max(uc)),
                    (MinMax::SMin, sv.min(sc) as u8 as u64),
                    (MinMax::SMax, sv.max(sc) as u8 as u64),
                ];
                for (f, x) in cases {
                    let r = Range::of_min_max(f, sext(c, 8), 8);
                    assert!(members(&r).contains(&x), "{f:?} {c} {v}");
                }
            }
        }
    }

    #[test]
    fn a_masked_index_is_below_its_bound() {
        // icmp ult (and %x, 63), 64: true
        let lhs = Range::of_binop((Opcode::And, InstFlags(0)), (None, Some(63)), 64, false);
        assert!(Range::exact_icmp(36, 64, 64).contains(&lhs));
        // icmp eq (and %x, 63), 100: false
        assert!(Range::exact_icmp(32, 100, 64).inverse().contains(&lhs));
    }
}
