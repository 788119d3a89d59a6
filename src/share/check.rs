//! Constant sharing checked against clang itself.
//!
//! Clang's JSON gives every literal its value and its type's canonical spelling
//! (`desugaredQualType`, or `qualType` when that is already canonical). Two literals
//! with the same canonical type and value are the same constant, and two with a
//! different type or value are not; so over the literals of a translation unit:
//!
//! - **precision**: of the literals whose constant ilkit shares with another literal's,
//!   the share whose clang key (type, value) is the key most of their group has;
//! - **recall**: of the literals whose clang key another literal also has, the share
//!   that ilkit put in the constant most of that key's literals got.
//!
//! Literals whose constant sharing does not take (strings when the configuration keeps
//! them apart) are counted on their own and left out of both.

use crate::il::{Eix, EntryId, EntryKind, Il};
use ahash::AHashMap;

/// A literal as its front end wrote it, with the constant made of it: what
/// [`check_sharing`] measures (the clang importer fills these with
/// `ImportOptions::record_literals`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralOrigin {
    /// The constant entry.
    pub constant: EntryId,
    /// The node's id as the dump gives it.
    pub clang_id: u64,
    /// Clang's canonical type: `desugaredQualType` when the dump has one, else
    /// `qualType`.
    pub clang_type: String,
    /// Clang's `value` (`"true"` for a bool, the quoted text for a string).
    pub value: String,
    /// The line clang gives (0 when the node carries none).
    pub line: u32,
}

/// The result of [`check_sharing`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharingCheck {
    /// Literals recorded by the import.
    pub literals: usize,
    /// Literals whose constant sharing does not take (left out of both measures).
    pub not_shareable: usize,
    /// Literals in an ilkit group of two or more.
    pub shared: usize,
    /// Of those, literals whose clang key differs from their group's commonest.
    pub wrongly_shared: usize,
    /// ilkit groups holding literals of more than one clang canonical type.
    pub groups_mixing_types: usize,
    /// Literals whose clang key another literal has.
    pub clang_shared: usize,
    /// Of those, literals not in the ilkit group their key's commonest one is.
    pub missed: usize,
    /// Up to ten examples of each kind of disagreement, readable.
    pub examples: Vec<String>,
}

impl SharingCheck {
    /// `1 - wrongly_shared / shared` in percent (100 with nothing shared).
    pub fn precision(&self) -> f64 {
        pct(self.shared - self.wrongly_shared, self.shared)
    }
    /// `1 - missed / clang_shared` in percent (100 with nothing to share).
    pub fn recall(&self) -> f64 {
        pct(self.clang_shared - self.missed, self.clang_shared)
    }
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// Shares every constant of `il` ([`super::share_all_constants`]) and measures the
/// groups its `literals` fall in against clang's canonical types and values (module
/// doc). Literals whose constant is gone are skipped.
///
/// ```
/// use ilkit::import::clang_json::{import_reader_with, ImportOptions};
/// let json = br#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[
///   {"id":"0x2","kind":"VarDecl","name":"a","type":{"qualType":"int"},"init":"c",
///    "inner":[{"id":"0x3","kind":"IntegerLiteral","type":{"qualType":"int"},"value":"7"}]},
///   {"id":"0x4","kind":"VarDecl","name":"b","type":{"qualType":"int"},"init":"c",
///    "inner":[{"id":"0x5","kind":"IntegerLiteral","type":{"qualType":"int"},"value":"7"}]}]}"#;
/// let mut il = ilkit::il::Il::new();
/// let opts = ImportOptions { record_literals: true, ..Default::default() };
/// let imp = import_reader_with(&mut il, &json[..], opts).unwrap();
/// let check = ilkit::share::check::check_sharing(&mut il, &imp.literals);
/// assert_eq!((check.literals, check.clang_shared, check.missed), (2, 2, 0));
/// assert_eq!(check.precision(), 100.0);
/// ```
pub fn check_sharing(il: &mut Il, literals: &[LiteralOrigin]) -> SharingCheck {
    let config = super::SharingConfig::default();
    // shareability is read before sharing marks the canonical constants shared
    let lits: Vec<(Eix, &LiteralOrigin)> = literals
        .iter()
        .filter_map(|l| il.eix(l.constant).ok().map(|e| (e, l)))
        .filter(|&(e, _)| il.kind(e) == EntryKind::Constant)
        .collect();
    let shareable: Vec<bool> = lits
        .iter()
        .map(|&(e, _)| super::constant_is_shareable(il, &config, e))
        .collect();
    let (_, map) = super::share_all_constants_mapped(il);
    let canon: AHashMap<Eix, Eix> = map.into_iter().collect();
    let mut r = SharingCheck {
        literals: literals.len(),
        ..SharingCheck::default()
    };
    // (literal, its ilkit group, its clang key)
    let mut rows: Vec<(&LiteralOrigin, Eix, (&str, &str))> = Vec::with_capacity(lits.len());
    for (&(e, l), &ok) in lits.iter().zip(&shareable) {
        if !ok {
            r.not_shareable += 1;
            continue;
        }
        let g = canon.get(&e).copied().unwrap_or(e);
        rows.push((l, g, (l.clang_type.as_str(), l.value.as_str())));
    }
    let mut by_group: AHashMap<Eix, Vec<usize>> = AHashMap::new();
    let mut by_key: AHashMap<(&str, &str), Vec<usize>> = AHashMap::new();
    for (i, row) in rows.iter().enumerate() {
        by_group.entry(row.1).or_default().push(i);
        by_key.entry(row.2).or_default().push(i);
    }
    let mut wrong_examples = Vec::new();
    let mut missed_examples = Vec::new();
    let mut groups: Vec<&Vec<usize>> = by_group.values().filter(|m| m.len() > 1).collect();
    groups.sort_unstable_by_key(|m| m[0]);
    for members in groups {
        r.shared += members.len();
        let key = commonest(members.iter().map(|&i| rows[i].2));
        let mut types: Vec<&str> = members.iter().map(|&i| rows[i].2 .0).collect();
        types.sort_unstable();
        types.dedup();
        r.groups_mixing_types += usize::from(types.len() > 1);
        for &i in members {
            if rows[i].2 != key {
                r.wrongly_shared += 1;
                if wrong_examples.len() < 10 {
                    wrong_examples.push(format!(
                        "shared, clang differs: {} line {} ({} {}) with ({} {})",
                        rows[i].0.clang_id,
                        rows[i].0.line,
                        rows[i].2 .0,
                        rows[i].2 .1,
                        key.0,
                        key.1
                    ));
                }
            }
        }
    }
    let mut keys: Vec<&Vec<usize>> = by_key.values().filter(|m| m.len() > 1).collect();
    keys.sort_unstable_by_key(|m| m[0]);
    for members in keys {
        r.clang_shared += members.len();
        let group = commonest(members.iter().map(|&i| rows[i].1));
        for &i in members {
            if rows[i].1 != group {
                r.missed += 1;
                if missed_examples.len() < 10 {
                    missed_examples.push(format!(
                        "not shared, clang equal: {} line {} ({} {})",
                        rows[i].0.clang_id, rows[i].0.line, rows[i].2 .0, rows[i].2 .1
                    ));
                }
            }
        }
    }
    r.examples = wrong_examples;
    r.examples.append(&mut missed_examples);
    r
}

/// The most frequent item, the first met among equals.
fn commonest<T: Copy + Eq + std::hash::Hash>(items: impl Iterator<Item = T>) -> T {
    let mut counts: Vec<(T, usize)> = Vec::new();
    let mut at: AHashMap<T, usize> = AHashMap::new();
    for x in items {
        match at.get(&x) {
            Some(&i) => counts[i].1 += 1,
            None => {
                at.insert(x, counts.len());
                counts.push((x, 1));
            }
        }
    }
    let mut best = counts[0];
    for &c in &counts[1..] {
        if c.1 > best.1 {
            best = c;
        }
    }
    best.0
}
