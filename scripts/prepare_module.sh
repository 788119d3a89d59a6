#!/usr/bin/env bash
# Prepare a clang -O0 module for the inliner comparison with LLVM 14 (PERF.md,
# "Inliner vs LLVM 14").
#
# Usage:
#     scripts/prepare_module.sh [--strip-optnone] M.O0.ll[.gz] OUT.ll
#
# clang -O0 puts `noinline` on every definition, which makes the inliner's answer
# trivial, so the word is removed from the module's attribute groups (a source-level
# `noinline` is lost the same way, for opt-14 and ilkit alike), then the function
# passes an -O1 pipeline runs before the inliner clean the bodies up:
#
#     sed -E '/^attributes #[0-9]+ = /s/\bnoinline //' M.O0.ll > M.O0.noattr.ll
#     opt-14 -passes='function(sroa,instcombine,simplifycfg)' -S M.O0.noattr.ll -o OUT.ll
#
# The modules are meant to be built with `clang-14 -O0 -Xclang -disable-O0-optnone
# -fno-discard-value-names`. A module built without `-disable-O0-optnone` carries
# `optnone`, which LLVM only accepts next to `noinline`: the script stops, unless
# `--strip-optnone` is given, which removes `optnone` from the groups as well.
#
# OUT.ll may be `-` (standard output). The input may be gzipped
# (`tests/corpus/llvm/zlib/zlib.O0.ll.gz`). The opt binary is `$OPT14` (default
# `opt-14`). Then compare with:
#
#     scripts/inline_remarks.py run OUT.ll
set -euo pipefail

usage() {
    sed -n '6p' "$0" | sed 's/^#     /usage: /' >&2
    exit 2
}

strip_optnone=0
if [[ "${1:-}" == "--strip-optnone" ]]; then
    strip_optnone=1
    shift
fi
[[ $# -eq 2 ]] || usage
in=$1
out=$2
opt=${OPT14:-opt-14}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The input as text (gunzipped when it ends in .gz).
read_input() {
    case "$in" in
        *.gz) gzip -dc -- "$in" ;;
        *) cat -- "$in" ;;
    esac
}

# Remove `noinline` (and `optnone` when asked) from the attribute groups.
strip_attrs() {
    if [[ $strip_optnone -eq 1 ]]; then
        sed -E '/^attributes #[0-9]+ = /{s/\bnoinline //;s/\boptnone //}'
    else
        sed -E '/^attributes #[0-9]+ = /s/\bnoinline //'
    fi
}

# The stripped module is named like the notes' (M.O0.noattr.ll) and given to opt by
# that relative name, so opt's `; ModuleID` line does not depend on the temporary folder.
base=$(basename -- "${in%.gz}")
noattr="${base%.ll}.noattr.ll"
read_input | strip_attrs > "$tmp/$noattr"

if [[ $strip_optnone -eq 0 ]] && grep -Eq '^attributes #[0-9]+ = .*\boptnone\b' "$tmp/$noattr"; then
    echo "prepare_module.sh: $in has optnone (built without -Xclang -disable-O0-optnone);" \
        "rerun with --strip-optnone to remove it too" >&2
    exit 1
fi

if [[ "$out" != "-" && "$out" != /* ]]; then
    out="$PWD/$out"
fi
(cd "$tmp" && "$opt" -passes='function(sroa,instcombine,simplifycfg)' -S "$noattr" -o "$out")
