//! The instruction view's vocabularies: opcodes, atomic orderings, instruction flags,
//! comparison predicates, operand values, the intrinsics analyses special-case and
//! operand-bundle tags.

use super::ExprIdx;
use crate::idx::BlockIdx;
use crate::llvm::SymbolIdx;

macro_rules! opcodes {
    ($($v:ident = $s:literal,)*) => {
        /// An instruction (or constant-expression) opcode.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Opcode { $(#[doc = concat!("`", $s, "`")] $v,)* }

        impl Opcode {
            /// LLVM's keyword.
            pub fn name(self) -> &'static str {
                match self { $(Opcode::$v => $s,)* }
            }

            /// The opcode a keyword names.
            pub fn from_word(w: &str) -> Option<Opcode> {
                Some(match w { $($s => Opcode::$v,)* _ => return None })
            }
        }
    };
}

opcodes! {
    Ret = "ret",
    Br = "br",
    Switch = "switch",
    IndirectBr = "indirectbr",
    Invoke = "invoke",
    Resume = "resume",
    Unreachable = "unreachable",
    CleanupRet = "cleanupret",
    CatchRet = "catchret",
    CatchSwitch = "catchswitch",
    CallBr = "callbr",
    FNeg = "fneg",
    Add = "add",
    FAdd = "fadd",
    Sub = "sub",
    FSub = "fsub",
    Mul = "mul",
    FMul = "fmul",
    UDiv = "udiv",
    SDiv = "sdiv",
    FDiv = "fdiv",
    URem = "urem",
    SRem = "srem",
    FRem = "frem",
    Shl = "shl",
    LShr = "lshr",
    AShr = "ashr",
    And = "and",
    Or = "or",
    Xor = "xor",
    Alloca = "alloca",
    Load = "load",
    Store = "store",
    GetElementPtr = "getelementptr",
    Fence = "fence",
    AtomicCmpXchg = "cmpxchg",
    AtomicRmw = "atomicrmw",
    Trunc = "trunc",
    ZExt = "zext",
    SExt = "sext",
    FpToUi = "fptoui",
    FpToSi = "fptosi",
    UiToFp = "uitofp",
    SiToFp = "sitofp",
    FpTrunc = "fptrunc",
    FpExt = "fpext",
    PtrToInt = "ptrtoint",
    IntToPtr = "inttoptr",
    BitCast = "bitcast",
    AddrSpaceCast = "addrspacecast",
    CleanupPad = "cleanuppad",
    CatchPad = "catchpad",
    ICmp = "icmp",
    FCmp = "fcmp",
    Phi = "phi",
    Call = "call",
    Select = "select",
    VaArg = "va_arg",
    ExtractElement = "extractelement",
    InsertElement = "insertelement",
    ShuffleVector = "shufflevector",
    ExtractValue = "extractvalue",
    InsertValue = "insertvalue",
    LandingPad = "landingpad",
    Freeze = "freeze",
}

impl Opcode {
    /// An integer binary operator (`add` ... `xor`, the divisions and remainders, the
    /// shifts).
    #[inline]
    pub fn is_int_binary(self) -> bool {
        matches!(
            self,
            Opcode::Add
                | Opcode::Sub
                | Opcode::Mul
                | Opcode::And
                | Opcode::Or
                | Opcode::Xor
                | Opcode::Shl
                | Opcode::LShr
                | Opcode::AShr
                | Opcode::UDiv
                | Opcode::SDiv
                | Opcode::URem
                | Opcode::SRem
        )
    }

    /// `call`, `invoke` or `callbr`.
    #[inline]
    pub fn is_call(self) -> bool {
        matches!(self, Opcode::Call | Opcode::Invoke | Opcode::CallBr)
    }

    /// Ends a block.
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Ret
                | Opcode::Br
                | Opcode::Switch
                | Opcode::IndirectBr
                | Opcode::Invoke
                | Opcode::Resume
                | Opcode::Unreachable
                | Opcode::CleanupRet
                | Opcode::CatchRet
                | Opcode::CatchSwitch
                | Opcode::CallBr
        )
    }

    /// A cast (`trunc` ... `addrspacecast`).
    pub fn is_cast(self) -> bool {
        matches!(
            self,
            Opcode::Trunc
                | Opcode::ZExt
                | Opcode::SExt
                | Opcode::FpToUi
                | Opcode::FpToSi
                | Opcode::UiToFp
                | Opcode::SiToFp
                | Opcode::FpTrunc
                | Opcode::FpExt
                | Opcode::PtrToInt
                | Opcode::IntToPtr
                | Opcode::BitCast
                | Opcode::AddrSpaceCast
        )
    }
}

/// Atomic ordering of a memory instruction (LLVM's `AtomicOrdering`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Ordering {
    /// Not atomic.
    NotAtomic = 0,
    /// `unordered`.
    Unordered = 1,
    /// `monotonic`.
    Monotonic = 2,
    /// `acquire`.
    Acquire = 3,
    /// `release`.
    Release = 4,
    /// `acq_rel`.
    AcqRel = 5,
    /// `seq_cst`.
    SeqCst = 6,
}

impl Ordering {
    /// The ordering a keyword names.
    pub fn from_word(w: &str) -> Option<Ordering> {
        Some(match w {
            "unordered" => Ordering::Unordered,
            "monotonic" => Ordering::Monotonic,
            "acquire" => Ordering::Acquire,
            "release" => Ordering::Release,
            "acq_rel" => Ordering::AcqRel,
            "seq_cst" => Ordering::SeqCst,
            _ => return None,
        })
    }

    fn from_bits(b: u16) -> Ordering {
        match b & 7 {
            1 => Ordering::Unordered,
            2 => Ordering::Monotonic,
            3 => Ordering::Acquire,
            4 => Ordering::Release,
            5 => Ordering::AcqRel,
            6 => Ordering::SeqCst,
            _ => Ordering::NotAtomic,
        }
    }
}

/// Flag bits of an instruction (or constant expression).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InstFlags(pub u16);

impl InstFlags {
    /// `volatile` (load, store, cmpxchg, atomicrmw).
    pub const VOLATILE: u16 = 1 << 3;
    /// `inbounds` (getelementptr).
    pub const INBOUNDS: u16 = 1 << 4;
    /// `syncscope("singlethread")`.
    pub const SINGLETHREAD: u16 = 1 << 5;
    /// `cleanupret` / `catchswitch` that unwinds to the caller.
    pub const UNWIND_TO_CALLER: u16 = 1 << 6;
    /// `tail` or `musttail` call.
    pub const TAIL: u16 = 1 << 7;
    /// `musttail` call.
    pub const MUSTTAIL: u16 = 1 << 8;
    /// `nuw`.
    pub const NUW: u16 = 1 << 9;
    /// `nsw`.
    pub const NSW: u16 = 1 << 10;
    /// `exact`.
    pub const EXACT: u16 = 1 << 11;
    /// `!nonnull` metadata (load).
    pub const NONNULL_MD: u16 = 1 << 12;
    /// `weak` (cmpxchg).
    pub const WEAK: u16 = 1 << 13;
    /// `inalloca` (alloca).
    pub const INALLOCA: u16 = 1 << 14;

    /// Whether flag bit(s) `f` are set.
    #[inline]
    pub fn has(self, f: u16) -> bool {
        self.0 & f != 0
    }

    /// The atomic ordering (success ordering for `cmpxchg`).
    #[inline]
    pub fn ordering(self) -> Ordering {
        Ordering::from_bits(self.0)
    }

    /// Sets the atomic ordering.
    pub fn set_ordering(&mut self, o: Ordering) {
        self.0 = (self.0 & !7) | o as u16;
    }

    /// `volatile`.
    #[inline]
    pub fn is_volatile(self) -> bool {
        self.has(Self::VOLATILE)
    }

    /// Atomic (any ordering).
    #[inline]
    pub fn is_atomic(self) -> bool {
        self.ordering() != Ordering::NotAtomic
    }

    /// Not volatile and at most `unordered` (LLVM's `isUnordered`).
    #[inline]
    pub fn is_unordered(self) -> bool {
        !self.is_volatile() && self.ordering() <= Ordering::Unordered
    }
}

/// An `icmp` / `fcmp` predicate, in LLVM's numbering (`fcmp` 0–15, `icmp` 32–41).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Predicate(pub u8);

/// `fcmp` predicates' keywords, by number.
const FCMP_WORDS: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge", "ult",
    "ule", "une", "true",
];
/// `icmp` predicates' keywords, by number from 32.
const ICMP_WORDS: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];

impl Predicate {
    /// The keyword LLVM prints (`eq`, `slt`, `oeq`, ...); empty for a number no
    /// predicate has.
    pub fn name(self) -> &'static str {
        let k = self.0 as usize;
        match k {
            0..=15 => FCMP_WORDS[k],
            32..=41 => ICMP_WORDS[k - 32],
            _ => "",
        }
    }

    /// The predicate a keyword names (`eq`, `slt`, `oeq`, ...), for `icmp` or `fcmp`.
    pub fn from_word(w: &str, fcmp: bool) -> Option<Predicate> {
        const F: [&str; 16] = FCMP_WORDS;
        const I: [&str; 10] = ICMP_WORDS;
        if fcmp {
            F.iter().position(|&p| p == w).map(|i| Predicate(i as u8))
        } else {
            I.iter()
                .position(|&p| p == w)
                .map(|i| Predicate(32 + i as u8))
        }
    }
}

/// A module-level operand: a constant, a block, inline assembly or metadata (what
/// constant expressions, aliases and personalities hold, and a body's
/// [`V::K`](super::body::V::K) operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// No operand (a malformed or skipped one).
    None,
    /// A global value: function, variable, alias or ifunc.
    Global(SymbolIdx),
    /// An integer constant that fits in `i32` (`true` is 1, `false` 0).
    Int(i32),
    /// An integer constant outside `i32`; its value is [`Ir::wide_int`](super::Ir::wide_int).
    WideInt(u32),
    /// `null`.
    Null,
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`.
    Zero,
    /// A `float` or `double` constant; its value is [`Ir::float`](super::Ir::float) (one
    /// entry per distinct value, so equal constants are one `Value`, as LLVM uniques
    /// them).
    Float(u32),
    /// Any other constant (`half`, `x86_fp80`, ... values, aggregate, string,
    /// `blockaddress`, `none`, ...).
    Other,
    /// A constant expression.
    Expr(ExprIdx),
    /// A basic block of the function (branch targets, phi predecessors).
    Block(BlockIdx),
    /// Inline assembly (a callee).
    Asm,
    /// A metadata operand (`metadata ...`), not a use of any value.
    Metadata,
}

impl Value {
    /// A constant (not an argument, instruction, block, metadata or asm).
    pub fn is_constant(self) -> bool {
        matches!(
            self,
            Value::Global(_)
                | Value::Int(_)
                | Value::WideInt(_)
                | Value::Null
                | Value::Undef
                | Value::Poison
                | Value::Zero
                | Value::Float(_)
                | Value::Other
                | Value::Expr(_)
        )
    }

    /// `null`, `zeroinitializer` or integer zero (LLVM's `isNullValue` for the kinds
    /// recorded here).
    pub fn is_null_value(self) -> bool {
        matches!(self, Value::Null | Value::Zero | Value::Int(0))
    }
}

/// Intrinsics (and pseudo-instructions) the analyses tell apart; every other `llvm.*`
/// function is [`Intrinsic::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// Not an intrinsic.
    None,
    /// `llvm.memcpy.*`.
    Memcpy,
    /// `llvm.memcpy.inline.*`.
    MemcpyInline,
    /// `llvm.memmove.*`.
    Memmove,
    /// `llvm.memset.*`.
    Memset,
    /// `llvm.va_start`.
    VaStart,
    /// `llvm.va_end`.
    VaEnd,
    /// `llvm.va_copy`.
    VaCopy,
    /// `llvm.dbg.*`.
    Debug,
    /// `llvm.pseudoprobe`.
    PseudoProbe,
    /// `llvm.assume`.
    Assume,
    /// `llvm.launder.invariant.group.*`.
    LaunderInvariantGroup,
    /// `llvm.strip.invariant.group.*`.
    StripInvariantGroup,
    /// `llvm.ptrmask.*`.
    PtrMask,
    /// `llvm.matrix.column.major.load.*`.
    MatrixLoad,
    /// `llvm.matrix.column.major.store.*`.
    MatrixStore,
    /// `llvm.lifetime.start/end.*`.
    Lifetime,
    /// `llvm.experimental.noalias.scope.decl`.
    NoAliasScopeDecl,
    /// Any other `llvm.*` function.
    Other,
}

impl Intrinsic {
    /// The intrinsic a function name denotes.
    pub fn from_name(name: &str) -> Intrinsic {
        let Some(rest) = name.strip_prefix("llvm.") else {
            return Intrinsic::None;
        };
        let is = |p: &str| rest == p || rest.starts_with(&format!("{p}."));
        if is("memcpy.inline") {
            Intrinsic::MemcpyInline
        } else if is("memcpy") {
            Intrinsic::Memcpy
        } else if is("memmove") {
            Intrinsic::Memmove
        } else if is("memset") && !rest.starts_with("memset.inline") {
            Intrinsic::Memset
        } else if rest == "va_start" {
            Intrinsic::VaStart
        } else if rest == "va_end" {
            Intrinsic::VaEnd
        } else if rest == "va_copy" {
            Intrinsic::VaCopy
        } else if rest.starts_with("dbg.") {
            Intrinsic::Debug
        } else if rest == "pseudoprobe" {
            Intrinsic::PseudoProbe
        } else if rest == "assume" {
            Intrinsic::Assume
        } else if is("launder.invariant.group") {
            Intrinsic::LaunderInvariantGroup
        } else if is("strip.invariant.group") {
            Intrinsic::StripInvariantGroup
        } else if is("ptrmask") {
            Intrinsic::PtrMask
        } else if is("matrix.column.major.load") {
            Intrinsic::MatrixLoad
        } else if is("matrix.column.major.store") {
            Intrinsic::MatrixStore
        } else if is("lifetime.start") || is("lifetime.end") {
            Intrinsic::Lifetime
        } else if rest == "experimental.noalias.scope.decl" {
            Intrinsic::NoAliasScopeDecl
        } else {
            Intrinsic::Other
        }
    }

    /// `memcpy`, `memcpy.inline`, `memmove` or `memset` (LLVM's `MemIntrinsic`).
    pub fn is_mem_intrinsic(self) -> bool {
        matches!(
            self,
            Intrinsic::Memcpy | Intrinsic::MemcpyInline | Intrinsic::Memmove | Intrinsic::Memset
        )
    }
}

/// Operand-bundle tags present on a call (bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BundleTags(pub u8);

impl BundleTags {
    /// `"deopt"`.
    pub const DEOPT: u8 = 1;
    /// `"funclet"`.
    pub const FUNCLET: u8 = 2;
    /// `"ptrauth"`.
    pub const PTRAUTH: u8 = 4;
    /// Any other tag.
    pub const OTHER: u8 = 8;

    /// The bit of a tag (without quotes).
    pub fn bit(tag: &str) -> u8 {
        match tag {
            "deopt" => Self::DEOPT,
            "funclet" => Self::FUNCLET,
            "ptrauth" => Self::PTRAUTH,
            _ => Self::OTHER,
        }
    }

    /// Any bundle at all.
    pub fn any(self) -> bool {
        self.0 != 0
    }
}
