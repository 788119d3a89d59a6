//! The fixed-point arithmetic LLVM 14's block frequencies are computed in, bit for bit:
//! branch probabilities as 31-bit fractions (`BranchProbability`), masses as 64-bit
//! fractions of `u64::MAX` (`BlockMass`), and frequencies as 64-bit scaled numbers with a
//! 16-bit exponent (`ScaledNumber<uint64_t>`), each rounding where LLVM's rounds. A
//! frequency one unit off flips a cold-call-site decision at the boundary, so the
//! inliner's frequencies use these and not floating point.

use std::cmp::Ordering;

/// The denominator of a [`prob`]: 2^31.
pub const PROB_ONE: u32 = 1 << 31;

/// `BranchProbability(n, d)`: `n / d` as a numerator over 2^31, rounded to nearest.
pub fn prob(n: u32, d: u32) -> u32 {
    debug_assert!(d > 0 && n <= d);
    if d == PROB_ONE {
        return n;
    }
    ((u64::from(n) * u64::from(PROB_ONE) + u64::from(d / 2)) / u64::from(d)) as u32
}

/// `BranchProbability::scale`: `x * p / 2^31`, rounded down, saturating.
pub fn scale_by_prob(x: u64, p: u32) -> u64 {
    if x == 0 || p == PROB_ONE {
        return x;
    }
    let q = (u128::from(x) * u128::from(p)) >> 31;
    u64::try_from(q).unwrap_or(u64::MAX)
}

/// The mass of a whole unit (`BlockMass::getFull`).
pub const FULL_MASS: u64 = u64::MAX;

const MAX_SCALE: i32 = 16383;
const MIN_SCALE: i32 = -16382;

/// `ScaledNumber<uint64_t>`: `digits * 2^scale`.
#[derive(Clone, Copy, Debug)]
pub struct Scaled {
    digits: u64,
    scale: i16,
}

fn rounded(digits: u64, scale: i32, round: bool) -> (u64, i32) {
    if round {
        let (d, overflow) = digits.overflowing_add(1);
        if overflow || d == 0 {
            return (1 << 63, scale + 1);
        }
        return (d, scale);
    }
    (digits, scale)
}

fn multiply64(l: u64, r: u64) -> (u64, i32) {
    let p = u128::from(l) * u128::from(r);
    let (upper, lower) = ((p >> 64) as u64, p as u64);
    if upper == 0 {
        return (lower, 0);
    }
    let lz = upper.leading_zeros();
    let shift = 64 - lz;
    let mut up = upper;
    if lz != 0 {
        up = upper << lz | lower >> shift;
    }
    rounded(
        up,
        shift as i32,
        shift != 0 && lower & (1u64 << (shift - 1)) != 0,
    )
}

fn divide64(mut dividend: u64, mut divisor: u64) -> (u64, i32) {
    let mut shift: i32 = 0;
    let tz = divisor.trailing_zeros();
    if tz != 0 {
        shift -= tz as i32;
        divisor >>= tz;
    }
    if divisor == 1 {
        return (dividend, shift);
    }
    let lz = dividend.leading_zeros();
    if lz != 0 {
        shift -= lz as i32;
        dividend <<= lz;
    }
    let mut quotient = dividend / divisor;
    dividend %= divisor;
    while quotient >> 63 == 0 && dividend != 0 {
        let overflow = dividend >> 63 != 0;
        dividend <<= 1;
        shift -= 1;
        quotient <<= 1;
        if overflow || divisor <= dividend {
            quotient |= 1;
            dividend = dividend.wrapping_sub(divisor);
        }
    }
    let half = (divisor >> 1) + (divisor & 1);
    rounded(quotient, shift, dividend >= half)
}

/// `(lg rounded, direction)` of `digits * 2^scale` (`getLgImpl`).
fn lg_impl(digits: u64, scale: i32) -> (i32, i32) {
    if digits == 0 {
        return (i32::MIN, 0);
    }
    let local_floor = 63 - digits.leading_zeros() as i32;
    let floor = scale + local_floor;
    if digits == 1u64 << local_floor {
        return (floor, 0);
    }
    let round = digits & (1u64 << (local_floor - 1)) != 0;
    (floor + i32::from(round), if round { 1 } else { -1 })
}

impl Scaled {
    /// `digits * 2^scale`, as given.
    pub const fn new(digits: u64, scale: i16) -> Scaled {
        Scaled { digits, scale }
    }
    /// Zero.
    pub const ZERO: Scaled = Scaled::new(0, 0);
    /// `getLargest`.
    pub const LARGEST: Scaled = Scaled::new(u64::MAX, MAX_SCALE as i16);

    /// `BlockMass::toScaled`: a full mass is 1, any other `(m + 1) * 2^-64`.
    pub fn of_mass(m: u64) -> Scaled {
        if m == FULL_MASS {
            Scaled::new(1, 0)
        } else {
            Scaled::new(m + 1, -64)
        }
    }

    fn is_zero(self) -> bool {
        self.digits == 0
    }

    fn from_pair((digits, scale): (u64, i32)) -> Scaled {
        Scaled {
            digits,
            scale: scale as i16,
        }
    }

    fn shift_left(&mut self, shift: i32) {
        if shift == 0 || self.is_zero() {
            return;
        }
        if shift < 0 {
            self.shift_right(-shift);
            return;
        }
        let scale_shift = shift.min(MAX_SCALE - i32::from(self.scale));
        self.scale = (i32::from(self.scale) + scale_shift) as i16;
        if scale_shift == shift || *self == Scaled::LARGEST {
            return;
        }
        let rest = shift - scale_shift;
        if rest > self.digits.leading_zeros() as i32 {
            *self = Scaled::LARGEST;
            return;
        }
        self.digits <<= rest;
    }

    fn shift_right(&mut self, shift: i32) {
        if shift == 0 || self.is_zero() {
            return;
        }
        if shift < 0 {
            self.shift_left(-shift);
            return;
        }
        let scale_shift = shift.min(i32::from(self.scale) - MIN_SCALE);
        self.scale = (i32::from(self.scale) - scale_shift) as i16;
        if scale_shift == shift {
            return;
        }
        let rest = shift - scale_shift;
        if rest >= 64 {
            *self = Scaled::ZERO;
            return;
        }
        self.digits >>= rest;
    }

    /// `ScaledNumber::operator<<=`.
    pub fn shl(mut self, shift: i32) -> Scaled {
        self.shift_left(shift);
        self
    }

    /// `operator*`.
    pub fn mul(self, x: Scaled) -> Scaled {
        if self.is_zero() {
            return self;
        }
        if x.is_zero() {
            return x;
        }
        let scales = i32::from(self.scale) + i32::from(x.scale);
        let p = if self.digits <= u64::from(u32::MAX) && x.digits <= u64::from(u32::MAX) {
            (self.digits * x.digits, 0)
        } else {
            multiply64(self.digits, x.digits)
        };
        Scaled::from_pair(p).shl(scales)
    }

    /// `operator/` (a division by zero is the largest number).
    pub fn div(self, x: Scaled) -> Scaled {
        if self.is_zero() {
            return self;
        }
        if x.is_zero() {
            return Scaled::LARGEST;
        }
        let scales = i32::from(self.scale) - i32::from(x.scale);
        Scaled::from_pair(divide64(self.digits, x.digits)).shl(scales)
    }

    /// `inverse`: `1 / self`.
    pub fn inverse(self) -> Scaled {
        Scaled::new(1, 0).div(self)
    }

    /// `lg`: the base-2 logarithm, rounded to nearest.
    pub fn lg(self) -> i32 {
        lg_impl(self.digits, i32::from(self.scale)).0
    }

    /// `toInt<uint64_t>`: truncating, saturating.
    pub fn to_u64(self) -> u64 {
        if self.cmp(&Scaled::new(1, 0)) == Ordering::Less {
            return 0;
        }
        if self.cmp(&Scaled::new(u64::MAX, 0)) != Ordering::Less {
            return u64::MAX;
        }
        match self.scale.cmp(&0) {
            Ordering::Greater => self.digits << self.scale,
            Ordering::Less => self.digits >> -i32::from(self.scale),
            Ordering::Equal => self.digits,
        }
    }
}

fn lg_floor(digits: u64, scale: i32) -> i32 {
    let (lg, dir) = lg_impl(digits, scale);
    lg - i32::from(dir > 0)
}

/// `compareImpl`: `l * 2^diff` against `r`... as LLVM words it, with `l`'s scale lower.
fn compare_impl(l: u64, r: u64, diff: i32) -> Ordering {
    let la = l >> diff;
    match la.cmp(&r) {
        Ordering::Equal if l > la << diff => Ordering::Greater,
        o => o,
    }
}

impl Ord for Scaled {
    fn cmp(&self, x: &Scaled) -> Ordering {
        match (self.digits, x.digits) {
            (0, 0) => return Ordering::Equal,
            (0, _) => return Ordering::Less,
            (_, 0) => return Ordering::Greater,
            _ => {}
        }
        let (ls, rs) = (i32::from(self.scale), i32::from(x.scale));
        let (lgl, lgr) = (lg_floor(self.digits, ls), lg_floor(x.digits, rs));
        if lgl != lgr {
            return lgl.cmp(&lgr);
        }
        if ls < rs {
            compare_impl(self.digits, x.digits, rs - ls)
        } else {
            compare_impl(x.digits, self.digits, ls - rs).reverse()
        }
    }
}

impl PartialEq for Scaled {
    fn eq(&self, x: &Scaled) -> bool {
        self.cmp(x) == Ordering::Equal
    }
}

impl Eq for Scaled {}

impl PartialOrd for Scaled {
    fn partial_cmp(&self, x: &Scaled) -> Option<Ordering> {
        Some(self.cmp(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_round_as_llvms() {
        assert_eq!(prob(1, 3), 715_827_883);
        assert_eq!(prob(20, 32), 1_342_177_280);
        assert_eq!(prob(1, 1), PROB_ONE);
        assert_eq!(scale_by_prob(u64::MAX, PROB_ONE / 2), u64::MAX / 2);
    }

    #[test]
    fn scaled_numbers_multiply_divide_and_compare() {
        let half_mass = Scaled::of_mass(u64::MAX / 2);
        assert_eq!(half_mass, Scaled::new(1 << 63, -64));
        let two = half_mass.inverse();
        assert_eq!(two.to_u64(), 2);
        assert_eq!(
            Scaled::new(3, 0)
                .div(Scaled::new(2, 0))
                .mul(Scaled::new(4, 0))
                .to_u64(),
            6
        );
        assert!(Scaled::new(1, 0) < Scaled::new(3, -1));
        assert!(Scaled::new(1 << 40, -40) == Scaled::new(1 << 40, -40));
        assert_eq!(
            Scaled::new(1, 0).cmp(&Scaled::new(1 << 40, -40)),
            Ordering::Equal
        );
        assert_eq!(Scaled::new(5, 0).lg(), 2);
        assert_eq!(Scaled::new(6, 0).lg(), 3);
        assert_eq!(Scaled::ZERO.inverse(), Scaled::LARGEST);
    }
}
