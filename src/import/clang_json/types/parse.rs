//! The type-printer syntax: a lexer over clang's type spellings (special parenthesized
//! names, `type-parameter-D-I`, template arguments and qualifiers kept in one name token)
//! and a recursive-descent parse of cv-qualifiers, builtin keyword sequences, names,
//! pointers, references, member pointers, arrays, function types and parenthesized
//! declarators into type entries. Names are handed to the resolver (`names`); nested
//! spellings (parameters, attribute-stripped types) go back through the interning cache.
//! Recursion is bounded by `MAX_DEPTH`: deeper input becomes a placeholder.

use super::{new_type, qual, set_base, Types, MAX_DEPTH};
use crate::il::kinds;
use crate::il::{fields as F, ConstantKind, Eix, EntryKind, Il, IlError, IntKind, TypeKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    Name,
    Star,
    Amp,
    AmpAmp,
    LParen,
    RParen,
    LBrack,
    RBrack,
    Comma,
    Ellipsis,
    Num,
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Tk {
    t: T,
    a: usize,
    b: usize,
}

fn lex(s: &str) -> Vec<Tk> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let t = match c {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'*' => T::Star,
            b'&' if b.get(i + 1) == Some(&b'&') => {
                i += 1;
                T::AmpAmp
            }
            b'&' => T::Amp,
            b'(' => {
                // Special names in parentheses: "(anonymous namespace)", "(lambda at ...)",
                // "(unnamed struct at ...)": one name, possibly followed by "::".
                let rest = &s[i..];
                if rest.starts_with("(anonymous")
                    || rest.starts_with("(lambda at")
                    || rest.starts_with("(unnamed")
                {
                    i = closing_paren(b, i) + 1;
                    i = name_tail(b, i);
                    v.push(Tk {
                        t: T::Name,
                        a: start,
                        b: i.min(b.len()),
                    });
                    continue;
                }
                T::LParen
            }
            b')' => T::RParen,
            b'[' => T::LBrack,
            b']' => T::RBrack,
            b',' => T::Comma,
            b'.' if s[i..].starts_with("...") => {
                i += 2;
                T::Ellipsis
            }
            b'0'..=b'9' => {
                while i + 1 < b.len() && (b[i + 1].is_ascii_alphanumeric()) {
                    i += 1;
                }
                T::Num
            }
            b':' if s[i..].starts_with("::") => {
                // A leading "::" (global qualifier) starts a name; `::*` is the
                // member-pointer declarator.
                i = name_tail(b, i);
                if i == start {
                    i += 2;
                    v.push(Tk {
                        t: T::Other,
                        a: start,
                        b: i,
                    });
                    continue;
                }
                v.push(Tk {
                    t: T::Name,
                    a: start,
                    b: i,
                });
                continue;
            }
            c if ident(c) => {
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                // clang's canonical template parameter `type-parameter-D-I` is one name.
                if s[start..i] == *"type" && s[i..].starts_with("-parameter-") {
                    i = tparam_end(b, i + "-parameter-".len());
                }
                i = name_tail(b, i);
                v.push(Tk {
                    t: T::Name,
                    a: start,
                    b: i,
                });
                continue;
            }
            _ => T::Other,
        };
        i += 1;
        v.push(Tk { t, a: start, b: i });
    }
    v
}

#[cfg(test)]
#[test]
fn lexer_always_advances() {
    for s in [
        "int Foo::*",
        "::*",
        "int (Foo::*)(int) const",
        "A<",
        "(lambda",
        "::",
    ] {
        assert!(lex(s).len() <= s.len() + 1, "{s}");
    }
}

/// The end of the `D-I` digits of `type-parameter-D-I` from `i` (just after the prefix).
fn tparam_end(b: &[u8], mut i: usize) -> usize {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(i);
    if i + 1 < b.len() && b[i] == b'-' && b[i + 1].is_ascii_digit() {
        i = digits(i + 1);
    }
    i
}

/// The index of the `)` that closes the `(` at `i` (or `b.len()` when it is not closed).
fn closing_paren(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Extends a name over `<...>` template arguments and `::` qualifiers.
fn name_tail(b: &[u8], mut i: usize) -> usize {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    loop {
        if i < b.len() && b[i] == b'<' {
            let mut depth = 0i32;
            let mut paren = 0i32;
            while i < b.len() {
                match b[i] {
                    b'(' => paren += 1,
                    b')' => paren -= 1,
                    b'<' if paren == 0 => depth += 1,
                    b'>' if paren == 0 => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        }
        if i + 1 < b.len() && b[i] == b':' && b[i + 1] == b':' {
            i += 2;
            if i < b.len() && b[i] == b'*' {
                // `Class::*`: the member-pointer declarator, not part of the name.
                return i - 2;
            }
            if i < b.len() && b[i] == b'(' {
                let rest = std::str::from_utf8(&b[i..]).unwrap_or("");
                if rest.starts_with("(anonymous")
                    || rest.starts_with("(lambda")
                    || rest.starts_with("(unnamed")
                {
                    i = (closing_paren(b, i) + 1).min(b.len());
                    continue;
                }
            }
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            continue;
        }
        return i;
    }
}

const BUILTIN_WORDS: &[&str] = &[
    "void",
    "bool",
    "_Bool",
    "char",
    "signed",
    "unsigned",
    "short",
    "int",
    "long",
    "float",
    "double",
    "__int128",
    "__fp16",
    "_Float16",
    "__bf16",
    "wchar_t",
    "char8_t",
    "char16_t",
    "char32_t",
    "__float128",
    "_Complex",
];

impl Types {
    pub(super) fn parse(&mut self, il: &mut Il, s: &str, depth: u32) -> Result<Eix, IlError> {
        if depth > MAX_DEPTH {
            return self.placeholder(il, s);
        }
        if s == "auto" {
            // A placeholder type deduced from the initializer: one type named `auto`.
            self.dependent_refs += 1;
            return self.auto_type(il);
        }
        if s.contains("<dependent type>")
            || s.starts_with("decltype(")
            || s.starts_with("auto ")
            || s.starts_with("const auto")
        {
            self.dependent_refs += 1;
            return self.dependent(il);
        }
        if s.starts_with('<') && s.ends_with('>')
            || s == "std::nullptr_t"
            || s == "nullptr_t"
            || s == "NULL TYPE"
            || s == "__va_list_tag"
            || s == "struct __va_list_tag"
        {
            // clang's special types: `<pseudo-object type>`, `<builtin fn type>`,
            // `<bound member function type>`, `<overloaded function type>`, nullptr_t.
            return self.builtin(il, &[s]);
        }
        if s.contains("__attribute__((") {
            // `float __attribute__((ext_vector_type(4)))`, `void (int) __attribute__((noreturn))`:
            // attributes are dropped; vector attributes make a tk_vector of the rest.
            let vector = s.contains("ext_vector_type") || s.contains("vector_size");
            let plain = strip_attributes(s);
            let t = self.intern_nested(il, plain.trim(), depth + 1)?;
            if vector {
                return self.derived(il, TypeKind::Vector, t, 0);
            }
            return Ok(t);
        }
        let toks = lex(s);
        let mut i = 0;
        let mut cv = 0u8;
        let mut words: Vec<&str> = Vec::new();
        let mut name: Option<&str> = None;
        let mut typename_kw = false;
        while i < toks.len() {
            let t = toks[i];
            if t.t != T::Name {
                break;
            }
            let w = &s[t.a..t.b];
            match w {
                "const" => cv |= qual::CONST,
                "volatile" => cv |= qual::VOLATILE,
                "restrict" | "__restrict" => cv |= qual::RESTRICT,
                "typename" => typename_kw = true,
                "struct" | "class" | "union" | "enum" | "__unaligned" => {}
                w if BUILTIN_WORDS.contains(&w) && name.is_none() => words.push(w),
                _ if name.is_none() && words.is_empty() => name = Some(w),
                _ => break,
            }
            i += 1;
        }
        let base = if !words.is_empty() {
            self.builtin(il, &words)?
        } else if let Some(n) = name {
            if typename_kw {
                self.typename_type(il, n)?
            } else {
                self.resolve_name(il, n)?
            }
        } else {
            return self.placeholder(il, s);
        };
        let base = self.qualify(il, base, cv)?;
        self.declarator(il, s, base, &toks[i..], depth)
    }

    fn declarator(
        &mut self,
        il: &mut Il,
        s: &str,
        mut t: Eix,
        toks: &[Tk],
        depth: u32,
    ) -> Result<Eix, IlError> {
        let mut i = 0;
        while i < toks.len() {
            match toks[i].t {
                T::Star => t = self.derived(il, TypeKind::Pointer, t, 0)?,
                T::Amp => t = self.derived(il, TypeKind::Pointer, t, qual::LREF)?,
                T::AmpAmp => t = self.derived(il, TypeKind::Pointer, t, qual::RREF)?,
                T::Name => match &s[toks[i].a..toks[i].b] {
                    "const" => t = self.qualify(il, t, qual::CONST)?,
                    "volatile" => t = self.qualify(il, t, qual::VOLATILE)?,
                    "restrict" | "__restrict" => t = self.qualify(il, t, qual::RESTRICT)?,
                    _ => {
                        // `Class::*`: pointer to member.
                        if toks.get(i + 1).map(|x| x.t) == Some(T::Other)
                            && toks.get(i + 2).map(|x| x.t) == Some(T::Star)
                        {
                            t = self.derived(il, TypeKind::PtrToMember, t, 0)?;
                            i += 3;
                            continue;
                        }
                        break;
                    }
                },
                _ => break,
            }
            i += 1;
        }
        // Direct abstract declarator: an optional parenthesized inner declarator, then
        // suffixes, applied right to left; the inner declarator applies last.
        let mut inner: Option<&[Tk]> = None;
        if i < toks.len() && toks[i].t == T::LParen {
            let nested = matches!(
                toks.get(i + 1).map(|x| x.t),
                Some(T::Star) | Some(T::Amp) | Some(T::AmpAmp) | Some(T::LParen)
            ) || (toks.get(i + 1).map(|x| x.t) == Some(T::Name)
                && s[toks[i + 1].b..].starts_with("::*"));
            if nested {
                let j = matching(toks, i);
                inner = Some(&toks[i + 1..j.min(toks.len())]);
                i = j + 1;
            }
        }
        // Suffixes.
        enum Suf<'s> {
            Arr(Option<u64>, &'s str),
            Fun(usize, usize),
        }
        let mut sufs = Vec::new();
        while i < toks.len() {
            match toks[i].t {
                T::LBrack => {
                    let n = if toks.get(i + 1).map(|x| x.t) == Some(T::Num) {
                        s[toks[i + 1].a..toks[i + 1].b]
                            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                            .parse::<u64>()
                            .ok()
                    } else {
                        None
                    };
                    let mut j = i;
                    while j < toks.len() && toks[j].t != T::RBrack {
                        j += 1;
                    }
                    let text = match (toks.get(i), toks.get(j)) {
                        (Some(a), Some(b)) if n.is_none() && a.b <= b.a => s[a.b..b.a].trim(),
                        _ => "",
                    };
                    sufs.push(Suf::Arr(n, text));
                    i = j + 1;
                }
                T::LParen => {
                    let j = matching(toks, i);
                    sufs.push(Suf::Fun(i, j.min(toks.len())));
                    i = j + 1;
                    // Trailing qualifiers, ref-qualifiers, noexcept(...), attributes.
                    while i < toks.len() && toks[i].t != T::LBrack && toks[i].t != T::LParen {
                        if toks[i].t == T::Name
                            && matches!(&s[toks[i].a..toks[i].b], "noexcept" | "throw")
                            && toks.get(i + 1).map(|x| x.t) == Some(T::LParen)
                        {
                            i = matching(toks, i + 1) + 1;
                            continue;
                        }
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        for suf in sufs.iter().rev() {
            t = match *suf {
                Suf::Arr(n, text) => {
                    let a = self.array(il, t, n)?;
                    if n.is_none() && !text.is_empty() {
                        self.dependent_bound(il, a, text)?;
                    }
                    a
                }
                Suf::Fun(a, b) => self.function(il, s, t, &toks[a + 1..b], depth)?,
            };
        }
        if let Some(inner) = inner {
            t = self.declarator(il, s, t, inner, depth + 1)?;
        }
        Ok(t)
    }

    fn function(
        &mut self,
        il: &mut Il,
        s: &str,
        ret: Eix,
        toks: &[Tk],
        depth: u32,
    ) -> Result<Eix, IlError> {
        let f = new_type(il, TypeKind::Routine, None)?;
        set_base(il, f, ret)?;
        let fid = il.id_of(f);
        let supp = il
            .child(fid, F::TYPE_ROUTINE_SUPPLEMENT)?
            .ok_or(IlError::Assert("routine type without supplement"))?;
        // Split parameters at top-level commas.
        let mut params: Vec<(usize, usize)> = Vec::new();
        let mut d = 0i32;
        let mut start: Option<usize> = None;
        let mut end = 0usize;
        for t in toks {
            match t.t {
                T::LParen | T::LBrack => d += 1,
                T::RParen | T::RBrack => d -= 1,
                T::Comma if d == 0 => {
                    if let Some(a) = start.take() {
                        params.push((a, end));
                    }
                    continue;
                }
                _ => {}
            }
            if start.is_none() {
                start = Some(t.a);
            }
            end = t.b;
        }
        if let Some(a) = start {
            params.push((a, end));
        }
        for (a, b) in params {
            let p = s[a..b].trim();
            if p == "void" || p.is_empty() {
                continue;
            }
            let pt = il.alloc_param_type()?;
            if p == "..." {
                let pe = il.eix(pt)?;
                il.param_type_mut(pe).set_is_pack(true);
            } else {
                let ty = if depth < MAX_DEPTH {
                    self.intern_nested(il, p, depth + 1)?
                } else {
                    self.placeholder(il, p)?
                };
                il.set_child(pt, F::PARAM_TYPE_TYPE, Some(il.id_of(ty)))?;
            }
            il.push_list(supp, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS, pt)?;
        }
        Ok(f)
    }

    pub(super) fn intern_nested(
        &mut self,
        il: &mut Il,
        s: &str,
        depth: u32,
    ) -> Result<Eix, IlError> {
        let (_, v) = self.spelling(il, s, depth)?;
        if !v.ph.is_none() {
            self.last_placeholder = v.ph;
        }
        Ok(v.t)
    }

    fn array(&mut self, il: &mut Il, elem: Eix, n: Option<u64>) -> Result<Eix, IlError> {
        let a = new_type(il, TypeKind::Array, None)?;
        set_base(il, a, elem)?;
        if let Some(n) = n {
            let c = il.alloc(EntryKind::Constant)?;
            kinds::set_constant_kind(il, c, ConstantKind::Integer)?;
            let ce = il.eix(c)?;
            il.constant_mut(ce).set_value(n as i64);
            il.set_child(il.id_of(a), F::TYPE_ARRAY_BOUND, Some(c))?;
            let esz = il.as_ty(elem).map_or(0, |t| t.size());
            il.ty_mut(a).set_size(esz.saturating_mul(n));
        }
        Ok(a)
    }

    pub(super) fn derived(
        &mut self,
        il: &mut Il,
        k: TypeKind,
        base: Eix,
        q: u8,
    ) -> Result<Eix, IlError> {
        let t = new_type(il, k, None)?;
        set_base(il, t, base)?;
        il.ty_mut(t).set_qualifiers(q);
        il.ty_mut(t).set_size(8);
        Ok(t)
    }

    fn qualify(&mut self, il: &mut Il, base: Eix, cv: u8) -> Result<Eix, IlError> {
        if cv == 0 {
            return Ok(base);
        }
        let t = new_type(il, TypeKind::Typeref, None)?;
        set_base(il, t, base)?;
        let size = il.as_ty(base).map_or(0, |b| b.size());
        il.ty_mut(t).set_qualifiers(cv).set_size(size);
        Ok(t)
    }

    pub(super) fn builtin(&mut self, il: &mut Il, words: &[&str]) -> Result<Eix, IlError> {
        let key = words.join(" ");
        if let Some(&e) = self.builtins.get(&key) {
            return Ok(e);
        }
        let has = |w: &str| words.contains(&w);
        let longs = words.iter().filter(|&&w| w == "long").count();
        let (k, size) = if words.len() == 1
            && (words[0].starts_with('<')
                || words[0].contains("nullptr_t")
                || words[0] == "NULL TYPE"
                || words[0].contains("__va_list_tag"))
        {
            let k = if words[0].contains("nullptr_t") {
                TypeKind::Pointer
            } else {
                TypeKind::Void
            };
            (k, 8)
        } else if has("void") {
            (TypeKind::Void, 0)
        } else if has("float") || has("_Float16") || has("__fp16") || has("__bf16") {
            (
                TypeKind::Float,
                if has("_Float16") || has("__fp16") || has("__bf16") {
                    2
                } else {
                    4
                },
            )
        } else if has("double") {
            (TypeKind::Float, if longs > 0 { 16 } else { 8 })
        } else if has("__float128") {
            (TypeKind::Float, 16)
        } else if has("bool") || has("_Bool") || has("char") || has("char8_t") {
            (TypeKind::Integer, 1)
        } else if has("short") || has("char16_t") {
            (TypeKind::Integer, 2)
        } else if has("__int128") {
            (TypeKind::Integer, 16)
        } else if longs > 0 {
            (TypeKind::Integer, 8)
        } else {
            (TypeKind::Integer, 4)
        };
        let t = new_type(il, k, Some(&key))?;
        il.ty_mut(t).set_size(size).set_int_kind(int_kind(words));
        self.builtins.insert(key, t);
        Ok(t)
    }

    /// The placeholder type `auto` (tk_template_param named `auto`): substitution leaves
    /// it, deduction from an initializer replaces it.
    pub(super) fn auto_type(&mut self, il: &mut Il) -> Result<Eix, IlError> {
        if let Some(d) = self.auto {
            return Ok(d);
        }
        let t = new_type(il, TypeKind::TemplateParam, Some("auto"))?;
        self.auto = Some(t);
        Ok(t)
    }

    pub(super) fn dependent(&mut self, il: &mut Il) -> Result<Eix, IlError> {
        if let Some(d) = self.dependent {
            return Ok(d);
        }
        let t = new_type(il, TypeKind::TemplateParam, Some("<dependent type>"))?;
        self.dependent = Some(t);
        Ok(t)
    }
}

/// Which builtin integer type the words of a builtin spelling name (`Int` for the
/// non-integer builtins, whose kind says what they are).
fn int_kind(words: &[&str]) -> IntKind {
    use IntKind as K;
    let has = |w: &str| words.contains(&w);
    let unsigned = has("unsigned");
    let pick = |s: K, u: K| if unsigned { u } else { s };
    let longs = words.iter().filter(|&&w| w == "long").count();
    if has("bool") || has("_Bool") {
        K::Bool
    } else if has("char8_t") {
        K::Char8
    } else if has("char16_t") {
        K::Char16
    } else if has("char32_t") {
        K::Char32
    } else if has("wchar_t") {
        K::WChar
    } else if has("char") {
        if has("signed") {
            K::SignedChar
        } else {
            pick(K::Char, K::UnsignedChar)
        }
    } else if has("short") {
        pick(K::Short, K::UnsignedShort)
    } else if has("__int128") {
        pick(K::Int128, K::UnsignedInt128)
    } else if longs >= 2 {
        pick(K::LongLong, K::UnsignedLongLong)
    } else if longs == 1 && !has("double") {
        pick(K::Long, K::UnsignedLong)
    } else {
        pick(K::Int, K::UnsignedInt)
    }
}

/// Removes every `__attribute__((...))` group.
fn strip_attributes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("__attribute__((") {
        out.push_str(&rest[..p]);
        let b = &rest.as_bytes()[p..];
        let j = (closing_paren(b, "__attribute__".len()) + 1).min(b.len());
        rest = &rest[p + j..];
    }
    out.push_str(rest);
    out
}

fn matching(toks: &[Tk], i: usize) -> usize {
    let mut d = 0i32;
    let mut j = i;
    while j < toks.len() {
        match toks[j].t {
            T::LParen => d += 1,
            T::RParen => {
                d -= 1;
                if d == 0 {
                    return j;
                }
            }
            _ => {}
        }
        j += 1;
    }
    toks.len()
}
