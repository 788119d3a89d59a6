//! LLVM's `TargetLibraryInfo` as the call graph needs it: which defined functions are
//! library functions (LLVM 14's names, checked against their prototypes), and the width
//! of `size_t` on a target.
//!
//! The table is data (`lib_functions.tsv`, sorted by name), parsed once on first use into
//! a sorted slice; a lookup is a binary search.

use std::sync::OnceLock;

/// `(name, prototype codes)` sorted by name, from `lib_functions.tsv`.
fn table() -> &'static [(&'static str, &'static str)] {
    static TABLE: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("lib_functions.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| l.split_once('\t'))
            .collect()
    })
}

/// The prototype codes of library function `name`, if LLVM knows it.
fn lookup(name: &str) -> Option<&'static str> {
    let t = table();
    t.binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| t[i].1)
}

/// Bits of `size_t` on the target a triple names: 32 on 32-bit targets, else 64.
pub fn size_t_bits(triple: Option<&str>) -> u32 {
    match triple {
        Some(t)
            if [
                "i386", "i486", "i586", "i686", "arm", "thumb", "wasm32", "riscv32", "mips-",
                "mipsel-", "ppc-", "powerpc-", "sparc-", "nvptx-",
            ]
            .iter()
            .any(|p| t.starts_with(p))
                || t.ends_with("gnux32") =>
        {
            32
        }
        _ => 64,
    }
}

/// Whether a triple names a GPU target (`nvptx*`, `amdgcn*`), whose only library
/// function LLVM 14 knows is `__nvvm_reflect`.
pub fn is_gpu_target(triple: Option<&str>) -> bool {
    triple.is_some_and(|t| t.starts_with("nvptx") || t.starts_with("amdgcn"))
}

/// Whether `name` is a library function LLVM 14's `TargetLibraryInfo` knows (every name
/// of `TargetLibraryInfo.def` except the MSVC-mangled ones and the Darwin-only
/// `memset_pattern*`/`__sinpi`-style entries; `__nvvm_reflect` is handled per target),
/// ignoring the prototype. See [`is_lib_function`] for the full check.
pub fn is_known_lib_function(name: &str) -> bool {
    lookup(name).is_some()
}

/// LLVM's `TargetLibraryInfo::getLibFunc(const Function &)`: a known library function
/// name whose function type `signature` (as in [`Module::signature`](super::Module::signature), e.g.
/// `i64(i32,ptr,i64)`) matches the library prototype, with `int` of 32 bits and
/// `size_t` of `size_t_bits`. Prototypes come from LLVM's `TargetLibraryInfo.def`
/// signature table (LLVM 16+ form of the same rules); the few entries LLVM checks by
/// hand are accepted on the name alone.
pub fn is_lib_function(name: &str, signature: &str, size_t_bits: u32) -> bool {
    lookup(name).is_some_and(|proto| proto_matches(proto, signature, size_t_bits))
}

/// Splits `ret(p1,p2,...)` into the return type, the parameter types and the vararg flag.
fn split_signature(sig: &str) -> Option<(&str, Vec<&str>, bool)> {
    let b = sig.as_bytes();
    if b.last() != Some(&b')') {
        return None;
    }
    // the parameter list is the last top-level parenthesized group
    let mut depth = 0i32;
    let mut open = None;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' | b']' | b'}' | b'>' => depth += 1,
            b'(' | b'[' | b'{' | b'<' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let ret = &sig[..open];
    let inner = &sig[open + 1..sig.len() - 1];
    let mut params = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.bytes().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                params.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner.is_empty() {
        params.push(&inner[start..]);
    }
    let vararg = params.last() == Some(&"...");
    if vararg {
        params.pop();
    }
    Some((ret, params, vararg))
}

fn int_bits(ty: &str) -> Option<u32> {
    ty.strip_prefix('i').and_then(|n| n.parse().ok())
}

fn is_fp(ty: &str) -> bool {
    matches!(
        ty,
        "half" | "bfloat" | "float" | "double" | "x86_fp80" | "fp128" | "ppc_fp128"
    )
}

/// LLVM's `matchType` for one prototype code (see `lib_functions.tsv`).
fn match_type(code: char, ty: &str, size_t_bits: u32) -> bool {
    match code {
        'v' => ty == "void",
        'b' => ty == "i8",
        'h' => ty == "i16",
        'w' | 'i' => ty == "i32",
        'I' | 'l' => int_bits(ty).is_some_and(|n| n >= 32),
        'x' => int_bits(ty).is_some(),
        'q' | 'L' => ty == "i64",
        'z' | 'Z' => int_bits(ty) == Some(size_t_bits),
        'f' => ty == "float",
        'd' => ty == "double",
        'D' | 'F' => is_fp(ty),
        'p' => ty == "ptr" || ty.starts_with("ptraddrspace(") || ty.ends_with('*'),
        's' => ty.starts_with('{') || ty.starts_with("<{") || ty.starts_with('%'),
        _ => false,
    }
}

/// LLVM's generic `isValidProtoForLibFunc` walk: return type then parameters; `v`
/// after the first position ends the list, `e` (ellipsis) requires varargs, `S` repeats
/// the previous type.
fn proto_matches(codes: &str, sig: &str, size_t_bits: u32) -> bool {
    if codes == "*" {
        return true;
    }
    let Some((ret, params, vararg)) = split_signature(sig) else {
        return false;
    };
    let mut idx = 0usize;
    let mut last = ret;
    for c in codes.chars() {
        if idx > 0 && c == 'v' {
            break;
        }
        if c == 'e' {
            return vararg;
        }
        let ty = if idx == 0 {
            Some(ret)
        } else {
            params.get(idx - 1).copied()
        };
        if c == 'S' {
            if ty != Some(last) {
                return false;
            }
        } else {
            match ty {
                Some(t) if match_type(c, t, size_t_bits) => last = t,
                _ => return false,
            }
        }
        idx += 1;
    }
    idx == params.len() + 1 && !vararg
}

#[cfg(test)]
mod tests {
    #[test]
    fn lib_table_is_sorted_and_whole() {
        let t = super::table();
        assert_eq!(t.len(), 438);
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn prototypes_like_llvm() {
        use super::is_lib_function as lib;
        assert!(lib("read", "i64(i32,ptr,i64)", 64));
        assert!(!lib("read", "i32(i32)", 64));
        assert!(lib("printf", "i32(ptr,...)", 64));
        assert!(!lib("printf", "i32(ptr)", 64));
        assert!(lib("memcpy", "i8*(i8*,i8*,i64)", 64));
        assert!(lib("fmin", "double(double,double)", 64));
        assert!(!lib("fmin", "double(double,float)", 64));
        assert!(lib("abs", "i32(i32)", 64));
        assert!(!lib("not_a_libcall", "i32(i32)", 64));
        assert!(lib("qsort", "void(ptr,i64,i64,ptr)", 64));
    }
}
