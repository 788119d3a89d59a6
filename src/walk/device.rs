//! Device marking as clang emits device code (the clang door) or as the seed's keep-in-IL
//! marks it (worlds without declaration facts), behind one entry: [`mark_device`].
//!
//! The kept-routine list ([`kept_routine_names`]) and the keep report are written here,
//! once, for every door.
//!
//! # Roots (clang door)
//! Roots are `__global__` kernels (instantiations, never patterns) with bodies,
//! namespace-scope device variables, and (as clang emits them) externally visible
//! non-inline `__device__` definitions; the call closure follows every routine and
//! variable referenced from kept bodies and initializers (not the initializers of
//! constexpr variables of arithmetic type: they are folded). Those routines get
//! `KeepDefinition`; [`mark_from_parallel`] then marks keep_in_il from them. The facts
//! come from `routine.decl_flags` / `variable.decl_flags` ([`rf`], [`vf`]).
//!
//! Complexity: O(entries + edges).

use super::keep::{device_roots, mark_from_parallel, mark_to_keep_in_il};
use crate::il::kinds::{rf, strip_typerefs, vf};
use crate::il::{fields as F, Eix, EntryKind, Flag, Il, StorageClass, TypeKind};
use std::io::Write;

/// What device marking found.
#[derive(Clone, Debug, Default)]
pub struct DeviceKeep {
    /// Kernel roots (`__global__` with bodies, not patterns).
    pub kernel_roots: usize,
    /// Externally visible non-inline `__device__` definitions used as roots.
    pub strong_device_roots: usize,
    /// Namespace-scope device variables used as roots.
    pub variable_roots: usize,
    /// Routines whose definitions device code needs (the call closure), dense order.
    pub routines: Vec<Eix>,
    /// Entries marked keep_in_il.
    pub kept: usize,
    /// Live entries.
    pub live: usize,
    /// Kept entries per kind.
    pub kept_per_kind: Vec<(EntryKind, usize)>,
    /// Kept entries per source file ordinal (`u16::MAX` = none), most first.
    pub kept_per_file: Vec<(u16, usize)>,
}

/// Options of [`mark_device`].
#[derive(Clone, Copy, Debug)]
pub struct DeviceOptions {
    /// Also root externally visible, non-inline, non-template `__device__` definitions
    /// (clang emits them whether used or not).
    pub strong_device_roots: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            strong_device_roots: true,
        }
    }
}

fn rflags(il: &Il, e: Eix) -> u16 {
    il.routine(e).decl_flags()
}

/// Whether the world carries declaration facts (a routine with `decl_flags`), as clang
/// imports do; generated and older worlds do not.
pub fn has_declaration_facts(il: &Il) -> bool {
    il.routine_columns().decl_flags.iter().any(|&f| f != 0)
}

/// Marks device code, the one entry for every world:
/// - with declaration facts ([`has_declaration_facts`]: clang imports), as clang emits
///   device code: the call closure from the device roots (kernels, namespace-scope device
///   variables, and with [`DeviceOptions::strong_device_roots`] externally visible
///   non-inline `__device__` definitions) gets `KeepDefinition`, and keep_in_il is marked
///   from it with [`mark_from_parallel`];
/// - without them, the seed's keep-in-IL marking ([`mark_to_keep_in_il`]) from routines
///   with a `__global__`/`__device__` attribute and variables in device memory.
///
/// Either way [`DeviceKeep::routines`] lists the routines whose definitions are kept.
/// O(entries + edges).
pub fn mark_device(il: &mut Il, opts: DeviceOptions) -> DeviceKeep {
    if !has_declaration_facts(il) {
        return mark_by_attributes(il);
    }
    mark_emitted(il, opts)
}

/// [`mark_device`] without declaration facts: the seed's marking.
fn mark_by_attributes(il: &mut Il) -> DeviceKeep {
    let r = mark_to_keep_in_il(il, &[]);
    let routines: Vec<Eix> = il
        .kind_list(EntryKind::Routine)
        .filter(|&e| il.flag(e, Flag::KeepDefinition))
        .collect();
    let kernel_roots = device_roots(il)
        .iter()
        .filter(|&&e| il.kind(e) == EntryKind::Routine)
        .count();
    let mut out = DeviceKeep {
        kernel_roots,
        variable_roots: r.roots - kernel_roots,
        routines,
        kept: r.kept,
        live: r.live,
        kept_per_kind: r.kept_per_kind,
        ..DeviceKeep::default()
    };
    out.kept_per_file = kept_per_file(il);
    out
}

/// [`mark_device`] with declaration facts: what clang emits.
fn mark_emitted(il: &mut Il, opts: DeviceOptions) -> DeviceKeep {
    let mut out = DeviceKeep::default();
    let mut queue: Vec<Eix> = Vec::new();
    for &e in il.routine_columns().eix {
        if e.is_none() || !il.is_live(e) {
            continue;
        }
        let f = rflags(il, e);
        if f & rf::BODY == 0 || f & rf::PATTERN != 0 {
            continue;
        }
        if f & rf::GLOBAL != 0 {
            out.kernel_roots += 1;
            queue.push(e);
        } else if opts.strong_device_roots
            && f & rf::DEVICE != 0
            && f & (rf::INLINE
                | rf::STATIC
                | rf::MEMBER
                | rf::INSTANCE
                | rf::INTERNAL
                | rf::ALWAYS_INLINE)
                == 0
        {
            out.strong_device_roots += 1;
            queue.push(e);
        }
    }
    let vars = il.variable_columns();
    for (row, &e) in vars.eix.iter().enumerate() {
        if e.is_none() || !il.is_live(e) {
            continue;
        }
        let sc = vars.storage_class[row];
        let vfl = vars.decl_flags[row];
        let local_or_member = vf::LOCAL | vf::PATTERN | vf::STATIC_MEMBER;
        if vars.cuda_space[row] != 0
            && matches!(sc, StorageClass::Global | StorageClass::Static)
            && vfl & local_or_member == 0
        {
            out.variable_roots += 1;
            queue.push(e);
        }
    }
    // The call closure: walk owned children of kept code, never into types (class
    // members are reached only when referenced), following references to routines with
    // bodies and to variables (their initializers).
    let cap = il.capacity();
    let mut seen = crate::il::BitSet::default();
    seen.grow(cap);
    let mut closure: Vec<Eix> = Vec::new();
    let mut stack: Vec<Eix> = Vec::new();
    for &r in &queue {
        if seen.insert(r.idx()) {
            stack.push(r);
        }
    }
    while let Some(e) = stack.pop() {
        let k = il.kind(e);
        if k == EntryKind::Routine {
            let f = rflags(il, e);
            if f & rf::BODY == 0 || f & rf::PATTERN != 0 {
                continue;
            }
            closure.push(e);
        }
        if k == EntryKind::Variable {
            // A constexpr arithmetic variable's initializer is constant-evaluated: the
            // routines it calls are folded, not emitted. (A constexpr function pointer still
            // needs its target.)
            let vfl = il.variable(e).decl_flags();
            let scalar = il
                .child_eix(e, F::VARIABLE_TYPE)
                .map(|t| {
                    let t = strip_typerefs(il, t);
                    il.as_ty(t).is_some_and(|t| {
                        matches!(t.type_kind(), TypeKind::Integer | TypeKind::Float)
                    })
                })
                .unwrap_or(false);
            if vfl & vf::CONSTEXPR != 0 && scalar {
                continue;
            }
        }
        for &c in il.children(e) {
            if c.is_none() || !il.is_live(c) {
                continue;
            }
            // Types own no code reached by calls; attribute arguments (launch bounds,
            // alignment) and static assertions are constant-evaluated.
            if matches!(
                il.kind(c),
                EntryKind::Type
                    | EntryKind::TemplateInfo
                    | EntryKind::Template
                    | EntryKind::Attribute
                    | EntryKind::StaticAssert
            ) {
                continue;
            }
            if seen.insert(c.idx()) {
                stack.push(c);
            }
        }
        for &r in il.refs(e) {
            if r.is_none() || !il.is_live(r) {
                continue;
            }
            if matches!(il.kind(r), EntryKind::Routine | EntryKind::Variable)
                && seen.insert(r.idx())
            {
                stack.push(r);
            }
        }
    }
    closure.sort_unstable();
    for &r in &closure {
        il.set_flag(r, Flag::KeepDefinition, true);
    }
    let mut roots = closure.clone();
    roots.extend(
        queue
            .iter()
            .copied()
            .filter(|&e| il.kind(e) == EntryKind::Variable),
    );
    out.kept = mark_from_parallel(il, roots);
    out.live = il.len();
    out.kept_per_kind = kept_per_kind(il);
    out.kept_per_file = kept_per_file(il);
    out.routines = closure;
    out
}

/// The mangled names (the plain name when clang printed none) of the kept routines that
/// have bodies, sorted and deduplicated: the `--kept-routines` list.
///
/// A user-written constructor or destructor appears with every variant clang emits for
/// it: the complete-object name clang's AST carries (`C1`, `D1`) and the base-object one
/// (`C2`, `D2`) beside it. Implicit special members get a variant only when they are
/// default constructors with member initializers (not trivial): clang emits none for a
/// trivial one.
pub fn kept_routine_names(il: &Il, dk: &DeviceKeep) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for &e in &dk.routines {
        if !il.is_live(e) || il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_none() {
            continue;
        }
        let m = il.string(e, 1);
        let b = if m.is_empty() { il.name(e) } else { m };
        let name = String::from_utf8_lossy(b).into_owned();
        // An implicit default constructor with member initializers is not trivial, and
        // clang emits both variants; other implicit special members of device classes
        // (trivial copies, moves, empty defaults) get no variant.
        let implicit_trivial = rflags(il, e) & rf::IMPLICIT != 0
            && (il.list_eix(e, F::ROUTINE_CTOR_INITS).is_empty()
                || !il.list_eix(e, F::ROUTINE_PARAMS).is_empty());
        if !implicit_trivial {
            if let Some(base) = base_object_variant(&name) {
                v.push(base);
            }
        }
        v.push(name);
    }
    v.sort();
    v.dedup();
    v
}

/// The base-object variant (`C2`/`D2`) of an Itanium-mangled complete-object constructor
/// or destructor name (`C1`/`D1`), found by walking the nested name (`_ZN ... E`): source
/// names by their lengths, substitutions, template arguments. `None` for anything else,
/// or a name the walk does not understand.
pub fn base_object_variant(mangled: &str) -> Option<String> {
    let b = mangled.as_bytes();
    let mut i = mangled.strip_prefix("_ZN")?.len();
    i = b.len() - i;
    // CV- and ref-qualifiers of a member function.
    while i < b.len() && matches!(b[i], b'r' | b'V' | b'K' | b'R' | b'O') {
        i += 1;
    }
    loop {
        match *b.get(i)? {
            b'0'..=b'9' => i = skip_source_name(b, i)?,
            b'S' => i = skip_substitution(b, i)?,
            b'I' => i = skip_template_args(b, i)?,
            b'C' | b'D' => {
                let kind = b[i];
                let v = *b.get(i + 1)?;
                if v != b'1' || !matches!(b.get(i + 2), Some(b'E' | b'I' | b'B')) {
                    return None;
                }
                let mut out = mangled.to_string();
                out.replace_range(i + 1..i + 2, "2");
                let _ = kind;
                return Some(out);
            }
            _ => return None,
        }
    }
}

/// Skips `<length><identifier>` starting at `i`.
fn skip_source_name(b: &[u8], mut i: usize) -> Option<usize> {
    let mut n = 0usize;
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        n = n.checked_mul(10)?.checked_add((d - b'0') as usize)?;
        i += 1;
    }
    (i + n <= b.len()).then_some(i + n)
}

/// Skips a substitution (`S_`, `S<seq>_`, `St`, `Sa`, `Sb`, `Ss`, `Si`, `So`, `Sd`).
fn skip_substitution(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b't' | b'a' | b'b' | b's' | b'i' | b'o' | b'd' => Some(i + 2),
        _ => {
            let mut j = i + 1;
            while *b.get(j)? != b'_' {
                if !b[j].is_ascii_alphanumeric() {
                    return None;
                }
                j += 1;
            }
            Some(j + 1)
        }
    }
}

/// Skips `I <args> E`, counting the constructs that end in `E` (template arguments,
/// nested names, expressions, packs, function types), skipping source names by their
/// lengths and literals (`L <type> <value> E`) whole.
fn skip_template_args(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(i)? {
            b'I' | b'N' | b'X' | b'J' | b'F' => {
                depth += 1;
                i += 1;
            }
            b'E' => {
                depth = depth.checked_sub(1)?;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'L' => i = skip_literal(b, i)?,
            b'0'..=b'9' => i = skip_source_name(b, i)?,
            b'S' => i = skip_substitution(b, i)?,
            _ => i += 1,
        }
    }
}

/// Skips a literal `L <type> <value> E` (an integer or enumerator template argument) or
/// an external name `L _Z ... E`.
fn skip_literal(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    match *b.get(i)? {
        b'_' => return None, // `L_Z <encoding> E`: not needed here
        b'N' => {
            // a qualified enumeration type: N <names> E
            i += 1;
            while *b.get(i)? != b'E' {
                i = match b[i] {
                    b'0'..=b'9' => skip_source_name(b, i)?,
                    b'S' => skip_substitution(b, i)?,
                    _ => return None,
                };
            }
            i += 1;
        }
        b'0'..=b'9' => i = skip_source_name(b, i)?,
        b'S' => i = skip_substitution(b, i)?,
        c if c.is_ascii_lowercase() => i += 1,
        _ => return None,
    }
    if b.get(i) == Some(&b'n') {
        i += 1;
    }
    while b.get(i)?.is_ascii_alphanumeric() && b[i] != b'E' {
        i += 1;
    }
    (b.get(i) == Some(&b'E')).then_some(i + 1)
}

/// The [`rf`] bits of a routine as words (`always_inline implicit inline ...`).
pub fn routine_flag_words(bits: u16) -> String {
    rf::NAMES
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Kept routines with bodies as `(mangled name, rf bits)`, sorted by name: what
/// `--kept-routines-detail` writes, for classifying differences with clang.
pub fn kept_routine_table(il: &Il, dk: &DeviceKeep) -> Vec<(String, u16)> {
    let mut v: Vec<(String, u16)> = dk
        .routines
        .iter()
        .filter(|&&e| il.is_live(e) && il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_some())
        .map(|&e| {
            let m = il.string(e, 1);
            let b = if m.is_empty() { il.name(e) } else { m };
            (String::from_utf8_lossy(b).into_owned(), rflags(il, e))
        })
        .collect();
    v.sort();
    v.dedup_by(|a, b| a.0 == b.0);
    v
}

/// Writes the device-marking report: roots, kept entries per kind and per file, kept
/// routines by name.
pub fn write_keep_report(
    il: &Il,
    files: &[String],
    dk: &DeviceKeep,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "device roots: {} kernels, {} strong __device__ definitions, {} variables",
        dk.kernel_roots, dk.strong_device_roots, dk.variable_roots
    )?;
    writeln!(
        out,
        "keep_in_il: {} of {} live entries; {} routines with definitions kept",
        dk.kept,
        dk.live,
        dk.routines.len()
    )?;
    writeln!(out, "kept per kind:")?;
    for (k, n) in &dk.kept_per_kind {
        writeln!(out, "  {n:>8}  {}", k.name())?;
    }
    writeln!(out, "kept per file (top 20):")?;
    for (f, n) in dk.kept_per_file.iter().take(20) {
        let name = files
            .get(*f as usize)
            .map(|s| s.as_str())
            .unwrap_or("(none)");
        writeln!(out, "  {n:>8}  {name}")?;
    }
    writeln!(out, "kept routines:")?;
    for &e in &dk.routines {
        writeln!(out, "  {}", String::from_utf8_lossy(il.name(e)))?;
    }
    Ok(())
}

/// Kept entries per kind, in kind order.
fn kept_per_kind(il: &Il) -> Vec<(EntryKind, usize)> {
    let mut per_kind = vec![0usize; EntryKind::ALL.len()];
    for i in il.flag_column(Flag::KeepInIl).iter() {
        let e = Eix::new(i);
        if il.is_live(e) {
            per_kind[il.kind(e) as usize] += 1;
        }
    }
    per_kind
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(k, &n)| (EntryKind::ALL[k], n))
        .collect()
}

/// Kept entries per source file ordinal, most first.
fn kept_per_file(il: &Il) -> Vec<(u16, usize)> {
    let mut per_file: ahash::AHashMap<u16, usize> = ahash::AHashMap::new();
    for i in il.flag_column(Flag::KeepInIl).iter() {
        let e = Eix::new(i);
        if il.is_live(e) {
            *per_file.entry(il.pos(e).file).or_default() += 1;
        }
    }
    let mut pf: Vec<(u16, usize)> = per_file.into_iter().collect();
    pf.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    pf
}

#[cfg(test)]
mod tests {
    use super::base_object_variant as v;

    #[test]
    fn base_object_variants_of_constructors_and_destructors() {
        assert_eq!(
            v("_ZN6__halfC1ERK10__half_raw").as_deref(),
            Some("_ZN6__halfC2ERK10__half_raw")
        );
        assert_eq!(
            v("_ZN13ggml_cuda_mma4tileILi16ELi8EiLNS_11data_layoutE0EEC1Ev").as_deref(),
            Some("_ZN13ggml_cuda_mma4tileILi16ELi8EiLNS_11data_layoutE0EEC2Ev")
        );
        assert_eq!(v("_ZN3FooD1Ev").as_deref(), Some("_ZN3FooD2Ev"));
        assert_eq!(v("_ZNK3Foo3getEv"), None);
        assert_eq!(v("_ZN6__halfC2ERK10__half_raw"), None);
        assert_eq!(v("_Z4maxgff"), None);
        // A class named like a marker is skipped by its length.
        assert_eq!(v("_ZN4AC1EC1Ev").as_deref(), Some("_ZN4AC1EC2Ev"));
        assert_eq!(
            v("_ZN2ns1AIN2ns1BEEC1Ev").as_deref(),
            Some("_ZN2ns1AIN2ns1BEEC2Ev")
        );
    }
}
