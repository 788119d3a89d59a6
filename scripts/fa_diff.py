#!/usr/bin/env python3
"""The attributes LLVM's `function-attrs` pass changed, one line per function and position.

Usage:
    fa_diff.py BEFORE.ll[.gz] AFTER.ll[.gz] [--string-attrs]

BEFORE is the module given to opt, AFTER what
`opt-14 -passes='cgscc(function-attrs)' -S BEFORE.ll` wrote. For every function
defined in BEFORE (and still defined in AFTER) the script prints the attributes added
(`+x`) or removed (`-x`) on the function (`fn`), its return value (`ret`) and each
argument (`argN %name`; `argN` alone for an argument written without a name):

    @deflateEnd fn +nofree +nosync
    @inflateGetHeader arg0 %strm +nocapture
    @mymalloc ret +noalias

Attribute groups (`#0` and `attributes #0 = { ... }`) are resolved; an attribute is
compared by its keyword (`dereferenceable(8)` is `dereferenceable`, `align 8` is
`align`), so a changed payload is not a change. Within a line the added attributes
come first, then the removed ones, each sorted by name; lines are sorted by function
name (a name outside `[-A-Za-z0-9_$.]` is printed quoted, `@"a b"`), then `fn`, `ret`,
arguments in order. This is the format `ilkit cgscc F.ll --passes
'cgscc(function-attrs)' --format attrs` prints, so

    opt-14 -passes='cgscc(function-attrs)' -S F.ll -o opt.ll
    diff <(scripts/fa_diff.py F.ll opt.ll) \\
         <(ilkit cgscc F.ll --passes 'cgscc(function-attrs)' --format attrs)

is empty when the two agree. String attributes (`"frame-pointer"="all"`) are left out
like ilkit leaves them out; `--string-attrs` includes them (keyed by their whole text,
so a changed value shows as `-"k"="old" +"k"="new"`). Declarations are left out:
the pass does not change them, but opt's reader rewrites intrinsic declarations.

Inputs may be gzipped (`tests/corpus/llvm/zlib/zlib.O0.ll.gz`).
"""

import argparse
import gzip
import re
import signal
import sys

# One lexical token of an IR header. Order matters: comments and strings first.
TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>;[^\n]*)
  | (?P<sym>[@%](?:"(?:[^"\\]|\\.)*"|[-\w$.]+))
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<group>\#\d+)
  | (?P<meta>![-\w$.]*)
  | (?P<word>\.\.\.|[-\w$.]+)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)

OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
CLOSE = {v: k for k, v in OPEN.items()}

# What may follow a function's attributes in a `define` header (not attributes).
FN_TRAILERS = {"section", "partition", "comdat", "align", "gc", "prefix", "prologue",
               "personality"}

# Words that may stand before the return type but are not attributes.
NOT_ATTRS = {
    "define", "private", "internal", "available_externally", "linkonce", "weak",
    "common", "appending", "extern_weak", "linkonce_odr", "weak_odr", "external",
    "default", "hidden", "protected", "dllimport", "dllexport", "dso_local",
    "dso_preemptable", "cc", "unnamed_addr", "local_unnamed_addr", "addrspace",
    "thread_local", "localdynamic", "initialexec", "localexec",
}

# LLVM's parameter/return attribute keywords (the only attributes a return can carry).
PARAM_ATTRS = {
    "align", "byref", "byval", "dereferenceable", "dereferenceable_or_null",
    "elementtype", "immarg", "inalloca", "inreg", "nest", "noalias", "nocapture",
    "nofree", "nonnull", "noundef", "preallocated", "readnone", "readonly", "returned",
    "signext", "sret", "swiftasync", "swifterror", "swiftself", "writeonly", "zeroext",
    "allocalign", "allocptr",
}


def read_text(path):
    """The text of an IR file, gunzipped when it ends in `.gz`."""
    if path == "-":
        return sys.stdin.read()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def tokenize(text):
    """The non-blank, non-comment tokens of `text`, as strings."""
    out = []
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        out.append(m.group())
    return out


def skip_balanced(toks, i):
    """Index after the bracketed group that starts at `toks[i]`."""
    depth = 0
    while i < len(toks):
        t = toks[i]
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def parse_attrs(toks, i, stop=lambda t: False):
    """Attributes from `toks[i]` on, as `(key, text)` pairs, until `stop(token)` or the
    end. Returns `(attrs, index)`. Handles `word`, `word(...)`, `align N`, `word=V`
    (inside attribute groups), `"k"`, `"k"="v"` and `#N` (returned as such)."""
    attrs = []
    while i < len(toks) and not stop(toks[i]):
        t = toks[i]
        if t.startswith('"'):
            text = t
            if i + 2 < len(toks) and toks[i + 1] == "=":
                text = t + "=" + toks[i + 2]
                i += 2
            attrs.append((text, text))
            i += 1
        elif t.startswith("#"):
            attrs.append((t, t))
            i += 1
        elif i + 1 < len(toks) and toks[i + 1] == "(":
            j = skip_balanced(toks, i + 1)
            attrs.append((t, t + "".join(toks[i + 1:j])))
            i = j
        elif i + 1 < len(toks) and toks[i + 1] == "=":
            attrs.append((t, t + "=" + toks[i + 2]))
            i += 3
        elif t == "align" and i + 1 < len(toks) and toks[i + 1].isdigit():
            attrs.append((t, t + " " + toks[i + 1]))
            i += 2
        else:
            attrs.append((t, t))
            i += 1
    return attrs, i


def parse_attr_groups(text):
    """`{'#0': [(key, text), ...]}` from the module's `attributes #N = { ... }` lines."""
    groups = {}
    for m in re.finditer(r"^attributes (#\d+) = \{(.*)\}\s*$", text, re.M):
        attrs, _ = parse_attrs(tokenize(m.group(2)), 0)
        groups[m.group(1)] = attrs
    return groups


def resolve(attrs, groups, strings):
    """`{key: text}` with `#N` expanded and (unless `strings`) string attributes dropped."""
    out = {}
    for key, text in attrs:
        items = groups.get(key, []) if key.startswith("#") else [(key, text)]
        for k, t in items:
            if k.startswith('"') and not strings:
                continue
            out[k] = t
    return out


def skip_type(toks, i):
    """Index after the IR type that starts at `toks[i]` (`i32`, `%struct.S*`,
    `{ i8, i32 }`, `<4 x float>`, `[2 x i8]*`, `i32 (i8*)*`, `ptr addrspace(1)`)."""
    if i >= len(toks):
        return i
    if toks[i] in OPEN:
        i = skip_balanced(toks, i)
    else:
        i += 1
    while i < len(toks):
        if toks[i] == "*":
            i += 1
        elif toks[i] == "addrspace" and i + 1 < len(toks) and toks[i + 1] == "(":
            i = skip_balanced(toks, i + 1)
        elif toks[i] == "(":
            i = skip_balanced(toks, i)  # a function type's parameter list
        else:
            break
    return i


def split_args(toks):
    """The argument list's tokens (without the outer parentheses) split at top-level
    commas."""
    args, cur, depth = [], [], 0
    for t in toks:
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
        if t == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        args.append(cur)
    return args


def parse_arg(toks):
    """`(name or '', [(key, text)])` of one argument's tokens; None for `...`."""
    if toks == ["..."]:
        return None
    i = skip_type(toks, 0)
    name = ""
    if len(toks) > i and toks[-1].startswith("%"):
        name = toks[-1]
        toks = toks[:-1]
    attrs, _ = parse_attrs(toks, i)
    return name, attrs


def unescape_name(sym):
    """A symbol's name without its sigil and quotes, `\\XX` escapes decoded."""
    name = sym[1:]
    if name.startswith('"'):
        name = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                      name[1:-1]).replace("\\\\", "\\")
    return name


def print_name(name):
    """The name as ilkit prints it: bare when made of `[-A-Za-z0-9_$.]`, else quoted."""
    if name and re.fullmatch(r"[-A-Za-z0-9_$.]+", name, re.ASCII):
        return name
    return '"' + name + '"'


def parse_define(toks):
    """`(name, ret_attrs, args, fn_attrs)` of one `define` header's tokens, where
    `args` is a list of `(name, attrs)` and attributes are `(key, text)` lists."""
    i, ret, depth = 1, [], 0
    while i < len(toks) and not (depth == 0 and toks[i].startswith("@")):
        t = toks[i]
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
        if depth == 0 and (t in PARAM_ATTRS or t.startswith('"')) and t not in NOT_ATTRS:
            attrs, i = parse_attrs(toks, i, stop=lambda x: x not in PARAM_ATTRS
                                   and not x.startswith('"'))
            ret.extend(attrs)
            continue
        i += 1
    name = unescape_name(toks[i])
    j = skip_balanced(toks, i + 1)
    args = [a for a in (parse_arg(a) for a in split_args(toks[i + 2:j - 1])) if a]
    k = j
    while k < len(toks) and toks[k] in ("unnamed_addr", "local_unnamed_addr"):
        k += 1
    if k + 1 < len(toks) and toks[k] == "addrspace" and toks[k + 1] == "(":
        k = skip_balanced(toks, k + 1)
    fn, _ = parse_attrs(toks, k, stop=lambda t: t in FN_TRAILERS or t == "{"
                        or t.startswith("!"))
    return name, ret, args, fn


def define_headers(text):
    """The text of every `define` header (up to its body's `{`), in module order."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("define "):
            header = lines[i]
            while not header.rstrip().endswith("{") and i + 1 < len(lines):
                i += 1
                header += " " + lines[i]
            yield header.rstrip()[:-1] if header.rstrip().endswith("{") else header
        i += 1


def read_module(path, strings=False):
    """`{name: (ret, [(arg name, attrs)], fn)}` for every function the module defines,
    each attribute set a `{key: text}` dict with groups resolved."""
    text = read_text(path)
    groups = parse_attr_groups(text)
    funcs = {}
    for header in define_headers(text):
        name, ret, args, fn = parse_define(tokenize(header))
        funcs[name] = (
            resolve(ret, groups, strings),
            [(an, resolve(a, groups, strings)) for an, a in args],
            resolve(fn, groups, strings),
        )
    return funcs


def diff(before, after):
    """`+x` for each key in `after` only, then `-x` for each in `before` only, sorted."""
    plus = sorted(after.keys() - before.keys())
    minus = sorted(before.keys() - after.keys())
    return ["+" + a for a in plus] + ["-" + a for a in minus]


def change_lines(before, after):
    """The change lines of two readings of a module (see the module docstring)."""
    out = []
    for name, (ret0, args0, fn0) in before.items():
        if name not in after:
            continue
        ret1, args1, fn1 = after[name]
        shown = print_name(name)
        lines = []
        d = diff(fn0, fn1)
        if d:
            lines.append(f"@{shown} fn {' '.join(d)}")
        d = diff(ret0, ret1)
        if d:
            lines.append(f"@{shown} ret {' '.join(d)}")
        for n, ((an, a0), (_, a1)) in enumerate(zip(args0, args1)):
            d = diff(a0, a1)
            if d:
                label = f"arg{n} {an}" if an else f"arg{n}"
                lines.append(f"@{shown} {label} {' '.join(d)}")
        out.append((shown, lines))
    out.sort(key=lambda x: x[0])
    return [line for _, lines in out for line in lines]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", help="the module opt-14 was given (.ll or .ll.gz)")
    p.add_argument("after", help="opt-14's -S output (.ll or .ll.gz)")
    p.add_argument("--string-attrs", action="store_true",
                   help="include string attributes (\"k\"=\"v\") in the comparison")
    a = p.parse_args(argv)
    lines = change_lines(read_module(a.before, a.string_attrs),
                         read_module(a.after, a.string_attrs))
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
