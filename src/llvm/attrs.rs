//! Attribute sets of functions, parameters, returns and call sites.
//!
//! An [`AttrSet`] is a bitset of the enum attributes LLVM 14–19 know ([`Attr`]) plus the
//! few integer and type payloads the engine reads (`dereferenceable(N)`,
//! `dereferenceable_or_null(N)`, `align N`, the type of `byval`/`sret`/`inalloca`/
//! `preallocated`/`byref`). String attributes are dropped except `"coroutine.presplit"`,
//! which maps to [`Attr::PresplitCoroutine`] (the keyword LLVM 15 gave it). Sets are
//! interned in [`AttrSets`]; [`AttrSetIdx`] 0 is the empty set.
//!
//! A set is 40 bytes and `Copy`; analyses copy the sets they mutate into side tables.

use super::types::TypeIdx;
use crate::idx::IndexVec;
use ahash::AHashMap;

crate::define_idx!(
    /// An interned attribute set ([`AttrSets`]); 0 is the empty set.
    AttrSetIdx,
    "as"
);

macro_rules! attrs {
    ($($(#[$m:meta])* $v:ident = $s:literal,)*) => {
        /// An enum attribute (function, parameter or return), by LLVM's keyword.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Attr { $($(#[$m])* #[doc = concat!("`", $s, "`")] $v,)* }

        impl Attr {
            /// Every attribute, in declaration order.
            pub const ALL: &'static [Attr] = &[$(Attr::$v,)*];

            /// LLVM's keyword.
            pub fn name(self) -> &'static str {
                match self { $(Attr::$v => $s,)* }
            }

            /// The attribute a keyword names.
            pub fn from_word(w: &str) -> Option<Attr> {
                Some(match w {
                    $($s => Attr::$v,)*
                    "\"coroutine.presplit\"" => Attr::PresplitCoroutine,
                    _ => return None,
                })
            }
        }
    };
}

attrs! {
    AlignStack = "alignstack",
    AllocAlign = "allocalign",
    AllocKind = "allockind",
    AllocPtr = "allocptr",
    AllocSize = "allocsize",
    AlwaysInline = "alwaysinline",
    ArgMemOnly = "argmemonly",
    Builtin = "builtin",
    Cold = "cold",
    Convergent = "convergent",
    DisableSanitizerInstrumentation = "disable_sanitizer_instrumentation",
    FnRetThunkExtern = "fn_ret_thunk_extern",
    Hot = "hot",
    InaccessibleMemOrArgMemOnly = "inaccessiblemem_or_argmemonly",
    InaccessibleMemOnly = "inaccessiblememonly",
    InlineHint = "inlinehint",
    JumpTable = "jumptable",
    Memory = "memory",
    MinSize = "minsize",
    MustProgress = "mustprogress",
    Naked = "naked",
    NoBuiltin = "nobuiltin",
    NoCallback = "nocallback",
    NoCfCheck = "nocf_check",
    NoDuplicate = "noduplicate",
    NoFree = "nofree",
    NoImplicitFloat = "noimplicitfloat",
    NoInline = "noinline",
    NoMerge = "nomerge",
    NonLazyBind = "nonlazybind",
    NoProfile = "noprofile",
    NoRecurse = "norecurse",
    NoRedZone = "noredzone",
    NoReturn = "noreturn",
    NoSanitizeBounds = "nosanitize_bounds",
    NoSanitizeCoverage = "nosanitize_coverage",
    NoSync = "nosync",
    NoUnwind = "nounwind",
    NullPointerIsValid = "null_pointer_is_valid",
    OptForFuzzing = "optforfuzzing",
    OptNone = "optnone",
    OptSize = "optsize",
    PresplitCoroutine = "presplitcoroutine",
    ReadNone = "readnone",
    ReadOnly = "readonly",
    ReturnsTwice = "returns_twice",
    SafeStack = "safestack",
    SanitizeAddress = "sanitize_address",
    SanitizeHwAddress = "sanitize_hwaddress",
    SanitizeMemory = "sanitize_memory",
    SanitizeMemTag = "sanitize_memtag",
    SanitizeThread = "sanitize_thread",
    ShadowCallStack = "shadowcallstack",
    Speculatable = "speculatable",
    SpeculativeLoadHardening = "speculative_load_hardening",
    Ssp = "ssp",
    SspReq = "sspreq",
    SspStrong = "sspstrong",
    StrictFp = "strictfp",
    UwTable = "uwtable",
    VScaleRange = "vscale_range",
    WillReturn = "willreturn",
    WriteOnly = "writeonly",
    Align = "align",
    ByRef = "byref",
    ByVal = "byval",
    Dereferenceable = "dereferenceable",
    DereferenceableOrNull = "dereferenceable_or_null",
    ElementType = "elementtype",
    ImmArg = "immarg",
    InAlloca = "inalloca",
    InReg = "inreg",
    Nest = "nest",
    NoAlias = "noalias",
    NoCapture = "nocapture",
    NonNull = "nonnull",
    NoUndef = "noundef",
    Preallocated = "preallocated",
    Returned = "returned",
    SignExt = "signext",
    StructRet = "sret",
    SwiftAsync = "swiftasync",
    SwiftError = "swifterror",
    SwiftSelf = "swiftself",
    ZeroExt = "zeroext",
}

/// A set of attributes with their payloads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttrSet {
    /// One bit per [`Attr`] (`1 << attr as u8`).
    pub bits: u128,
    /// `dereferenceable(N)` (0 when absent).
    pub dereferenceable: u64,
    /// `dereferenceable_or_null(N)` (0 when absent).
    pub dereferenceable_or_null: u64,
    /// `align N` (0 when absent).
    pub align: u64,
    /// The type of `byval(T)`, `sret(T)`, `inalloca(T)`, `preallocated(T)` or
    /// `byref(T)` (NONE when absent or written without a type).
    pub ty: TypeIdx,
}

impl AttrSet {
    /// The empty set.
    pub const EMPTY: AttrSet = AttrSet {
        bits: 0,
        dereferenceable: 0,
        dereferenceable_or_null: 0,
        align: 0,
        ty: TypeIdx::NONE,
    };

    /// Whether `a` is in the set.
    #[inline]
    pub fn has(&self, a: Attr) -> bool {
        self.bits & (1u128 << a as u8) != 0
    }

    /// Adds `a`.
    #[inline]
    pub fn add(&mut self, a: Attr) {
        self.bits |= 1u128 << a as u8;
    }

    /// Removes `a`.
    #[inline]
    pub fn remove(&mut self, a: Attr) {
        self.bits &= !(1u128 << a as u8);
    }

    /// The attributes in the set, in [`Attr`] order.
    pub fn iter(&self) -> impl Iterator<Item = Attr> + '_ {
        Attr::ALL.iter().copied().filter(move |&a| self.has(a))
    }

    /// True when the set holds no attribute.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
}

/// Interned attribute sets; index 0 is the empty set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrSets {
    sets: IndexVec<AttrSetIdx, AttrSet>,
    index: AHashMap<AttrSet, AttrSetIdx>,
}

impl Default for AttrSets {
    fn default() -> Self {
        let mut s = AttrSets {
            sets: IndexVec::new(),
            index: AHashMap::new(),
        };
        s.intern(AttrSet::EMPTY);
        s
    }
}

impl AttrSets {
    /// The index of the empty set.
    pub const EMPTY: AttrSetIdx = AttrSetIdx(0);

    /// Interns `s`.
    pub fn intern(&mut self, s: AttrSet) -> AttrSetIdx {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.sets.push(s);
        self.index.insert(s, i);
        i
    }

    /// Set `i`.
    #[inline]
    pub fn get(&self, i: AttrSetIdx) -> &AttrSet {
        &self.sets[i]
    }

    /// Number of distinct sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Never true (the empty set is always there).
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_attribute_sits_at_its_number_in_all() {
        // a journal stores an attribute as its number and reads it back through ALL
        for (k, &a) in Attr::ALL.iter().enumerate() {
            assert_eq!(a as usize, k, "{a:?}");
        }
        assert!(Attr::ALL.len() <= 256);
    }

    #[test]
    fn names_round_trip_and_fit_the_bitset() {
        assert!(Attr::ALL.len() <= 128);
        for &a in Attr::ALL {
            assert_eq!(Attr::from_word(a.name()), Some(a));
        }
        assert_eq!(
            Attr::from_word("\"coroutine.presplit\""),
            Some(Attr::PresplitCoroutine)
        );
        let mut s = AttrSet::EMPTY;
        s.add(Attr::NoCapture);
        s.add(Attr::ReadOnly);
        assert_eq!(
            s.iter().map(Attr::name).collect::<Vec<_>>(),
            ["readonly", "nocapture"]
        );
        let mut sets = AttrSets::default();
        assert_eq!(sets.intern(AttrSet::EMPTY), AttrSets::EMPTY);
        let i = sets.intern(s);
        assert_eq!(sets.intern(s), i);
    }
}
