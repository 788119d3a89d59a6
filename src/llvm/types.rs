//! Interned LLVM types with a small structural description.
//!
//! Every type a module's instruction view mentions is interned once in [`Types`] and
//! named by a [`TypeIdx`]: two types are the same type exactly when their indices are
//! equal (what LLVM's `Type *` identity gives). Identified structs (`%struct.s`) are one
//! [`TypeKind::Named`] leaf per name, with their body kept beside it, so recursive types
//! need no cycles in the table.
//!
//! # Invariants
//! - the operands of a type (element, fields, parameters, return) are earlier types;
//! - `lists` holds the field / parameter lists; every [`TypeList`] is in range;
//! - interning is structural: a [`TypeKind`] with equal parts is stored once.
//!
//! Interning is O(parts) with one hash lookup; queries are O(1) except
//! [`Types::is_zero_sized`], which walks aggregates (bounded by the nesting the reader
//! accepts).

use crate::idx::IndexVec;
use ahash::AHashMap;

crate::define_idx!(
    /// An interned type ([`Types`]).
    TypeIdx,
    "ty"
);
crate::define_idx!(
    /// An identified (named) struct type, `%name = type ...`.
    NamedIdx,
    "nt"
);

/// A run of types in [`Types`]' list pool (struct fields, function parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TypeList {
    /// First entry in the pool.
    pub start: u32,
    /// Number of entries.
    pub len: u32,
}

/// The floating-point kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `half`.
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `x86_fp80`.
    X86Fp80,
    /// `fp128`.
    Fp128,
    /// `ppc_fp128`.
    PpcFp128,
}

/// What a type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `void`.
    Void,
    /// `label`.
    Label,
    /// `metadata`.
    Metadata,
    /// `token`.
    Token,
    /// `iN`.
    Int(u32),
    /// A floating-point type.
    Float(FloatKind),
    /// `T*` / `T addrspace(N)*` (typed pointer), or `ptr` / `ptr addrspace(N)` (opaque:
    /// `pointee` is NONE).
    Ptr {
        /// Address space.
        addrspace: u32,
        /// Pointee type, NONE for an opaque pointer.
        pointee: TypeIdx,
    },
    /// `[N x T]`.
    Array {
        /// Element count.
        len: u64,
        /// Element type.
        elem: TypeIdx,
    },
    /// `<N x T>` / `<vscale x N x T>`.
    Vector {
        /// Element count (the minimum for a scalable vector).
        len: u32,
        /// Element type.
        elem: TypeIdx,
        /// `vscale x`.
        scalable: bool,
    },
    /// A literal struct `{ ... }` / `<{ ... }>`.
    Struct {
        /// Field types.
        fields: TypeList,
        /// `<{ }>`.
        packed: bool,
    },
    /// An identified struct `%name`; its body is [`Types::named_body`].
    Named(NamedIdx),
    /// A function type `R (P...)`.
    Function {
        /// Return type.
        ret: TypeIdx,
        /// Parameter types.
        params: TypeList,
        /// Ends in `...`.
        vararg: bool,
    },
    /// Any type this model does not describe (`x86_mmx`, `x86_amx`, `target(...)`, `opaque`).
    Other,
}

/// The structural key a type is interned by (lists spelled out).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Leaf(TypeKind),
    Struct(Box<[TypeIdx]>, bool),
    Function(TypeIdx, Box<[TypeIdx]>, bool),
}

/// The interned types of one module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Types {
    kinds: IndexVec<TypeIdx, TypeKind>,
    lists: Vec<TypeIdx>,
    /// Identified structs: name (without `%`, escapes decoded) and body (NONE: opaque or
    /// never defined).
    named: IndexVec<NamedIdx, (String, TypeIdx)>,
    named_index: AHashMap<String, NamedIdx>,
    index: AHashMap<Key, TypeIdx>,
    /// The `Named` leaf type of each identified struct.
    named_type: IndexVec<NamedIdx, TypeIdx>,
}

impl Types {
    /// Number of types.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True when no type is interned.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// What type `t` is.
    #[inline]
    pub fn kind(&self, t: TypeIdx) -> TypeKind {
        self.kinds[t]
    }

    /// The types of a list (struct fields, function parameters).
    #[inline]
    pub fn list(&self, l: TypeList) -> &[TypeIdx] {
        &self.lists[l.start as usize..(l.start + l.len) as usize]
    }

    /// Interns a type without lists.
    pub fn leaf(&mut self, k: TypeKind) -> TypeIdx {
        debug_assert!(!matches!(
            k,
            TypeKind::Struct { .. } | TypeKind::Function { .. }
        ));
        self.intern(Key::Leaf(k), k)
    }

    /// `void`, if the module has it (without interning it).
    pub fn find_void(&self) -> Option<TypeIdx> {
        self.index.get(&Key::Leaf(TypeKind::Void)).copied()
    }

    /// `iN`, if the module has it (without interning it).
    pub fn find_int(&self, bits: u32) -> Option<TypeIdx> {
        self.index.get(&Key::Leaf(TypeKind::Int(bits))).copied()
    }

    /// A pointer to `pointee` in address space `addrspace`, if the module has it
    /// (without interning it).
    pub fn find_ptr(&self, pointee: TypeIdx, addrspace: u32) -> Option<TypeIdx> {
        let k = TypeKind::Ptr { addrspace, pointee };
        self.index.get(&Key::Leaf(k)).copied()
    }

    /// Interns `void`.
    pub fn void(&mut self) -> TypeIdx {
        self.leaf(TypeKind::Void)
    }

    /// Interns `iN`.
    pub fn int(&mut self, bits: u32) -> TypeIdx {
        self.leaf(TypeKind::Int(bits))
    }

    /// Interns a pointer in address space `addrspace` (`pointee` NONE: opaque).
    pub fn ptr(&mut self, pointee: TypeIdx, addrspace: u32) -> TypeIdx {
        self.leaf(TypeKind::Ptr { addrspace, pointee })
    }

    /// Interns a literal struct.
    pub fn literal_struct(&mut self, fields: &[TypeIdx], packed: bool) -> TypeIdx {
        let key = Key::Struct(fields.into(), packed);
        if let Some(&t) = self.index.get(&key) {
            return t;
        }
        let l = self.push_list(fields);
        self.intern(key, TypeKind::Struct { fields: l, packed })
    }

    /// Interns a function type.
    pub fn function(&mut self, ret: TypeIdx, params: &[TypeIdx], vararg: bool) -> TypeIdx {
        let key = Key::Function(ret, params.into(), vararg);
        if let Some(&t) = self.index.get(&key) {
            return t;
        }
        let l = self.push_list(params);
        self.intern(
            key,
            TypeKind::Function {
                ret,
                params: l,
                vararg,
            },
        )
    }

    /// The identified struct named `name` (its `Named` type), created on first mention.
    pub fn named(&mut self, name: &str) -> TypeIdx {
        if let Some(&n) = self.named_index.get(name) {
            return self.named_type[n];
        }
        let n = self.named.push((name.to_string(), TypeIdx::NONE));
        self.named_index.insert(name.to_string(), n);
        let t = self.leaf(TypeKind::Named(n));
        self.named_type.push(t);
        t
    }

    /// Sets the body of identified struct `named` (a `Named` type) to `body`.
    pub fn set_named_body(&mut self, named: TypeIdx, body: TypeIdx) {
        if let TypeKind::Named(n) = self.kinds[named] {
            self.named[n].1 = body;
        }
    }

    /// The name of an identified struct.
    pub fn named_name(&self, n: NamedIdx) -> &str {
        &self.named[n].0
    }

    /// The body of an identified struct (NONE when opaque).
    pub fn named_body(&self, n: NamedIdx) -> TypeIdx {
        self.named[n].1
    }

    fn push_list(&mut self, items: &[TypeIdx]) -> TypeList {
        let start = self.lists.len() as u32;
        self.lists.extend_from_slice(items);
        TypeList {
            start,
            len: items.len() as u32,
        }
    }

    fn intern(&mut self, key: Key, k: TypeKind) -> TypeIdx {
        if let Some(&t) = self.index.get(&key) {
            return t;
        }
        let t = self.kinds.push(k);
        self.index.insert(key, t);
        t
    }

    // ------------------------------------------------------------ queries

    /// `void`.
    #[inline]
    pub fn is_void(&self, t: TypeIdx) -> bool {
        !t.is_none() && self.kinds[t] == TypeKind::Void
    }

    /// A scalar pointer (`isPointerTy`).
    #[inline]
    pub fn is_pointer(&self, t: TypeIdx) -> bool {
        !t.is_none() && matches!(self.kinds[t], TypeKind::Ptr { .. })
    }

    /// A pointer or a vector of pointers (`isPtrOrPtrVectorTy`).
    pub fn is_ptr_or_ptr_vector(&self, t: TypeIdx) -> bool {
        if t.is_none() {
            return false;
        }
        match self.kinds[t] {
            TypeKind::Ptr { .. } => true,
            TypeKind::Vector { elem, .. } => self.is_pointer(elem),
            _ => false,
        }
    }

    /// The address space of a pointer (or of a vector of pointers' elements); 0 otherwise.
    pub fn addrspace(&self, t: TypeIdx) -> u32 {
        if t.is_none() {
            return 0;
        }
        match self.kinds[t] {
            TypeKind::Ptr { addrspace, .. } => addrspace,
            TypeKind::Vector { elem, .. } => self.addrspace(elem),
            _ => 0,
        }
    }

    /// The pointee of a typed pointer (NONE for opaque pointers and non-pointers).
    pub fn pointee(&self, t: TypeIdx) -> TypeIdx {
        match (!t.is_none()).then(|| self.kinds[t]) {
            Some(TypeKind::Ptr { pointee, .. }) => pointee,
            _ => TypeIdx::NONE,
        }
    }

    /// Integer width in bits, for `iN`.
    pub fn int_bits(&self, t: TypeIdx) -> Option<u32> {
        match (!t.is_none()).then(|| self.kinds[t]) {
            Some(TypeKind::Int(b)) => Some(b),
            _ => None,
        }
    }

    /// The parts of a function type: `(ret, params, vararg)`.
    pub fn function_parts(&self, t: TypeIdx) -> Option<(TypeIdx, &[TypeIdx], bool)> {
        match (!t.is_none()).then(|| self.kinds[t]) {
            Some(TypeKind::Function {
                ret,
                params,
                vararg,
            }) => Some((ret, self.list(params), vararg)),
            _ => None,
        }
    }

    /// The struct behind `t` (a literal struct, or an identified struct's body):
    /// `(fields, packed)`.
    pub fn struct_fields(&self, t: TypeIdx) -> Option<(&[TypeIdx], bool)> {
        match (!t.is_none()).then(|| self.kinds[t]) {
            Some(TypeKind::Struct { fields, packed }) => Some((self.list(fields), packed)),
            Some(TypeKind::Named(n)) => self.struct_fields(self.named[n].1),
            _ => None,
        }
    }

    /// The element type a GEP index steps into from aggregate `t`: field `index` of a
    /// struct, the element of an array or vector; NONE otherwise.
    pub fn gep_step(&self, t: TypeIdx, index: Option<i64>) -> TypeIdx {
        if t.is_none() {
            return TypeIdx::NONE;
        }
        match self.kinds[t] {
            TypeKind::Array { elem, .. } | TypeKind::Vector { elem, .. } => elem,
            TypeKind::Struct { .. } | TypeKind::Named(_) => match (self.struct_fields(t), index) {
                (Some((fields, _)), Some(i)) if i >= 0 && (i as usize) < fields.len() => {
                    fields[i as usize]
                }
                _ => TypeIdx::NONE,
            },
            _ => TypeIdx::NONE,
        }
    }

    /// A sized type whose allocation size is zero (`{}`, `[0 x T]`, a struct of such);
    /// false for unsized types (opaque structs, functions, `void`, labels).
    pub fn is_zero_sized(&self, t: TypeIdx) -> bool {
        self.zero_sized(t, 0)
    }

    fn zero_sized(&self, t: TypeIdx, depth: u32) -> bool {
        if t.is_none() || depth > 256 {
            return false;
        }
        match self.kinds[t] {
            TypeKind::Array { len, elem } => {
                self.is_sized(elem) && (len == 0 || self.zero_sized(elem, depth + 1))
            }
            TypeKind::Struct { fields, .. } => self
                .list(fields)
                .iter()
                .all(|&f| self.zero_sized(f, depth + 1)),
            TypeKind::Named(n) => self.zero_sized(self.named[n].1, depth + 1),
            _ => false,
        }
    }

    /// A type with a size (`isSized`): not `void`, `label`, `metadata`, `token`, a function
    /// or an opaque struct.
    pub fn is_sized(&self, t: TypeIdx) -> bool {
        self.sized(t, 0)
    }

    fn sized(&self, t: TypeIdx, depth: u32) -> bool {
        if t.is_none() || depth > 256 {
            return false;
        }
        match self.kinds[t] {
            TypeKind::Void
            | TypeKind::Label
            | TypeKind::Metadata
            | TypeKind::Token
            | TypeKind::Function { .. }
            | TypeKind::Other => false,
            TypeKind::Int(_) | TypeKind::Float(_) | TypeKind::Ptr { .. } => true,
            TypeKind::Array { elem, .. } | TypeKind::Vector { elem, .. } => {
                self.sized(elem, depth + 1)
            }
            TypeKind::Struct { fields, .. } => {
                self.list(fields).iter().all(|&f| self.sized(f, depth + 1))
            }
            TypeKind::Named(n) => self.sized(self.named[n].1, depth + 1),
        }
    }

    /// A sized type with a non-zero size (what "has dereferenceable bytes" needs).
    pub fn has_nonzero_size(&self, t: TypeIdx) -> bool {
        self.is_sized(t) && !self.is_zero_sized(t)
    }

    /// Whether field `index` of struct `t` starts at a non-zero offset: some earlier
    /// field has a non-zero size (alignment padding only follows a non-empty field).
    pub fn struct_field_offset_nonzero(&self, t: TypeIdx, index: usize) -> bool {
        match self.struct_fields(t) {
            Some((fields, _)) => fields
                .iter()
                .take(index)
                .any(|&f| !self.is_zero_sized(f) && self.is_sized(f)),
            None => false,
        }
    }

    /// LLVM's spelling of type `t` (`i32`, `%struct.s*`, `{ i8, [4 x i16] }`), for
    /// messages and tests.
    pub fn display(&self, t: TypeIdx) -> String {
        let mut s = String::new();
        self.write(&mut s, t, 0);
        s
    }

    fn write(&self, out: &mut String, t: TypeIdx, depth: u32) {
        use std::fmt::Write;
        if t.is_none() || depth > 64 {
            out.push('?');
            return;
        }
        match self.kinds[t] {
            TypeKind::Void => out.push_str("void"),
            TypeKind::Label => out.push_str("label"),
            TypeKind::Metadata => out.push_str("metadata"),
            TypeKind::Token => out.push_str("token"),
            TypeKind::Other => out.push_str("<other>"),
            TypeKind::Int(b) => {
                let _ = write!(out, "i{b}");
            }
            TypeKind::Float(k) => out.push_str(match k {
                FloatKind::Half => "half",
                FloatKind::BFloat => "bfloat",
                FloatKind::Float => "float",
                FloatKind::Double => "double",
                FloatKind::X86Fp80 => "x86_fp80",
                FloatKind::Fp128 => "fp128",
                FloatKind::PpcFp128 => "ppc_fp128",
            }),
            TypeKind::Ptr { addrspace, pointee } => {
                if pointee.is_none() {
                    out.push_str("ptr");
                    if addrspace != 0 {
                        let _ = write!(out, " addrspace({addrspace})");
                    }
                } else {
                    self.write(out, pointee, depth + 1);
                    if addrspace != 0 {
                        let _ = write!(out, " addrspace({addrspace})");
                    }
                    out.push('*');
                }
            }
            TypeKind::Array { len, elem } => {
                let _ = write!(out, "[{len} x ");
                self.write(out, elem, depth + 1);
                out.push(']');
            }
            TypeKind::Vector {
                len,
                elem,
                scalable,
            } => {
                out.push('<');
                if scalable {
                    out.push_str("vscale x ");
                }
                let _ = write!(out, "{len} x ");
                self.write(out, elem, depth + 1);
                out.push('>');
            }
            TypeKind::Struct { fields, packed } => {
                if packed {
                    out.push('<');
                }
                out.push('{');
                for (i, &f) in self.list(fields).iter().enumerate() {
                    out.push_str(if i == 0 { " " } else { ", " });
                    self.write(out, f, depth + 1);
                }
                out.push_str(if fields.len == 0 { "}" } else { " }" });
                if packed {
                    out.push('>');
                }
            }
            TypeKind::Named(n) => {
                out.push('%');
                write_name(out, &self.named[n].0);
            }
            TypeKind::Function {
                ret,
                params,
                vararg,
            } => {
                self.write(out, ret, depth + 1);
                out.push_str(" (");
                for (i, &p) in self.list(params).iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(out, p, depth + 1);
                }
                if vararg {
                    out.push_str(if params.len > 0 { ", ..." } else { "..." });
                }
                out.push(')');
            }
        }
    }
}

/// A local or global name as LLVM prints it: bare when it is a slot number or every
/// character may stand in a name (and the first is no digit), else quoted with `\XX`
/// escapes.
fn write_name(out: &mut String, name: &str) {
    let ok = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_');
    let b = name.as_bytes();
    let number = !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    if number || (!b.is_empty() && !b[0].is_ascii_digit() && b.iter().all(|&c| ok(c))) {
        out.push_str(name);
        return;
    }
    out.push('"');
    for &c in b {
        if c == b'"' || c == b'\\' || !(0x20..0x7f).contains(&c) {
            out.push_str(&format!("\\{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_llvm_prints_them() {
        let mut t = Types::default();
        let a = t.named("struct.a");
        let b = t.named("class.std::exception");
        let c = t.named("q\"x");
        assert_eq!(t.display(a), "%struct.a");
        assert_eq!(t.display(b), "%\"class.std::exception\"");
        assert_eq!(t.display(c), "%\"q\\22x\"");
        let n = t.named("7");
        assert_eq!(t.display(n), "%7");
    }

    #[test]
    fn interning_is_structural() {
        let mut t = Types::default();
        let i8t = t.int(8);
        let p = t.ptr(i8t, 0);
        assert_eq!(t.ptr(i8t, 0), p);
        assert_ne!(t.ptr(i8t, 1), p);
        let s = t.literal_struct(&[i8t, p], false);
        assert_eq!(t.literal_struct(&[i8t, p], false), s);
        assert_eq!(t.display(s), "{ i8, i8* }");
        let named = t.named("struct.a");
        t.set_named_body(named, s);
        assert!(t.struct_field_offset_nonzero(named, 1));
        assert!(!t.struct_field_offset_nonzero(named, 0));
        let empty = t.literal_struct(&[], false);
        assert!(t.is_zero_sized(empty) && t.is_sized(empty));
        let f = t.function(p, &[i8t], true);
        assert_eq!(t.display(f), "i8* (i8, ...)");
        let opaque = t.named("struct.opaque");
        assert!(!t.is_sized(opaque));
    }
}
