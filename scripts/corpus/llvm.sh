#!/usr/bin/env bash
# Regenerate tests/corpus/llvm (zlib and zstd as LLVM IR and PTX, with LLVM 14's answers)
# from the sources of the crates libz-sys 1.1.31 and zstd-sys 2.1.2+zstd.1.5.7.
#
#   scripts/corpus/llvm.sh [--out DIR] [--only zlib|zstd] [--check] [--keep-work]
#
#   --out DIR     where to write <cb>/... (default: a new temporary folder, printed at the end)
#   --only CB     one code base (zlib or zstd; default both)
#   --check       afterwards compare the output with the committed tests/corpus/llvm:
#                 decompressed bytes for IR, PTX and printer text (PTX: up to the order of
#                 lines, as llc-14/19 emit module-level .global variables in an order that
#                 varies between runs), parsed JSON (field by field) for the answers; exit
#                 status 1 on any other difference
#   --keep-work   keep the scratch folder (per-TU IR, llc logs)
#   FULL=1        also compile the four largest zstd TUs for nvptx (skipped, as committed)
#
# Needs (installed with apt-get on Debian bookworm when missing): clang-14, llvm-14
# (llvm-link, opt, llc, llvm-extract), clang-19, llvm-19 (llc); cargo (fetches the two crates
# into its registry through a scratch project); python3 with networkx (answers.py).
#
# What it does, per code base <cb> (see <cb>/SOURCES.txt for files and flags):
#   <cb>.O2.ll        clang-14 -O2 -fno-discard-value-names -S -emit-llvm per C file, then
#                     llvm-link-14 -S in SOURCES.txt order (run in the registry src folder)
#   <cb>.O0.ll        (zlib) the same with -O0 -Xclang -disable-O0-optnone
#   <cb>.O2.nonames.ll (zlib) -O2 without -fno-discard-value-names
#   nvptx/<tu>.nvptx.O2.ll  clang-14 --target=nvptx64-nvidia-cuda -O2 -fno-discard-value-names
#                     (x86-64 glibc headers; an empty gnu/stubs-32.h stands in, since glibc
#                     asks for the 32-bit stubs without __x86_64__); a function llc-14 cannot
#                     select is deleted with llvm-extract-14 --delete (PTX_STATUS.tsv)
#   nvptx/<tu>.ptx    llc-14 -march=nvptx64 -mcpu=sm_70
#   nvptx/<tu>.llvm19.ptx  (zlib) the same with clang-19 and llc-19
#   X.domloops.txt, X.lcg.txt, X.cfgsccs.txt, X.cgsccs.txt   opt-14 printers, run in the
#                     output folder on the relative path <cb>/X.ll (the path is printed)
#   X.cfg.json, X.lcg.json, *.ptx.cfg.json   scripts/corpus/answers.py
# then gzips every .ll, .ptx, .json and .txt (gzip -9 -n).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ANSWERS="$HERE/answers.py"
OUT=""
ONLY=""
CHECK=0
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift ;;
    --only) ONLY="$2"; shift ;;
    --check) CHECK=1 ;;
    --keep-work) KEEP=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
case "$ONLY" in ""|zlib|zstd) ;; *) echo "--only takes zlib or zstd" >&2; exit 2 ;; esac
[ -n "$OUT" ] || OUT="$(mktemp -d "${TMPDIR:-/tmp}/corpus-llvm.XXXXXX")"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/corpus-llvm-work.XXXXXX")"
if [ "$KEEP" = 1 ]; then echo "scratch folder: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

# ---- toolchain -------------------------------------------------------------------------
need=(clang-14 llvm-link-14 opt-14 llc-14 llvm-extract-14 clang-19 llc-19)
missing=0
for t in "${need[@]}"; do command -v "$t" >/dev/null 2>&1 || missing=1; done
if [ "$missing" = 1 ]; then
  echo "installing clang-14 llvm-14 clang-19 llvm-19 with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 llvm-14 clang-19 llvm-19 >/dev/null
fi
python3 -c 'import networkx' 2>/dev/null || { echo "answers.py needs networkx (pip install networkx)" >&2; exit 1; }
command -v cargo >/dev/null 2>&1 || { echo "cargo is needed to fetch the crates" >&2; exit 1; }
GLIBC_MULTIARCH_INC="${GLIBC_MULTIARCH_INC:-/usr/include/x86_64-linux-gnu}"

# ---- sources: fetch the two crates into cargo's registry ---------------------------------
LIBZ=libz-sys-1.1.31
ZSTD=zstd-sys-2.1.2+zstd.1.5.7
mkdir -p "$WORK/fetch/src"
cat > "$WORK/fetch/Cargo.toml" <<'EOF'
[package]
name = "corpus-llvm-fetch"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
libz-sys = { version = "=1.1.31", default-features = false }
zstd-sys = { version = "=2.1.2", default-features = false }
EOF
echo 'fn main() {}' > "$WORK/fetch/src/main.rs"
(cd "$WORK/fetch" && cargo fetch -q)
REG=""
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  if [ -d "$d$LIBZ" ] && [ -d "$d$ZSTD" ]; then REG="${d%/}"; break; fi
done
[ -n "$REG" ] || { echo "crate sources not found under ${CARGO_HOME:-$HOME/.cargo}/registry/src" >&2; exit 1; }

ZLIB_FLAGS="-DSTDC -D_LARGEFILE64_SOURCE -DHAVE_UNISTD_H -DHAVE_STDARG_H -I$LIBZ/src/zlib"
ZLIB_SRC=(adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate
          inftrees trees uncompr zutil)
ZLIB_FILES=()
for t in "${ZLIB_SRC[@]}"; do ZLIB_FILES+=("$LIBZ/src/zlib/$t.c"); done
ZSTD_FLAGS="-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -I$ZSTD/zstd/lib -I$ZSTD/zstd/lib/common"
ZSTD_FILES=()
for t in common/debug common/entropy_common common/error_private common/fse_decompress \
         common/pool common/threading common/xxhash common/zstd_common compress/fse_compress \
         compress/hist compress/huf_compress compress/zstd_compress \
         compress/zstd_compress_literals compress/zstd_compress_sequences \
         compress/zstd_compress_superblock compress/zstd_double_fast compress/zstd_fast \
         compress/zstd_lazy compress/zstd_ldm compress/zstd_opt compress/zstd_preSplit \
         compress/zstdmt_compress decompress/huf_decompress decompress/zstd_ddict \
         decompress/zstd_decompress decompress/zstd_decompress_block dictBuilder/cover \
         dictBuilder/divsufsort dictBuilder/fastcover dictBuilder/zdict; do
  ZSTD_FILES+=("$ZSTD/zstd/lib/$t.c")
done
ZSTD_BIG=" zstd_double_fast zstd_fast zstd_lazy zstd_opt "   # nvptx only with FULL=1

mkdir -p "$WORK/inc/gnu"
: > "$WORK/inc/gnu/stubs-32.h"
NVPTX_INC=(-isystem "$WORK/inc" -isystem "$GLIBC_MULTIARCH_INC")

# ---- helpers -----------------------------------------------------------------------------
# link_cb CB TAG FLAGS... : per-TU IR with clang-14 FLAGS, llvm-link'ed into $OUT/CB/CB.TAG.ll
link_cb() {
  local cb="$1" tag="$2"; shift 2
  local files=() lls=() f b
  if [ "$cb" = zlib ]; then files=("${ZLIB_FILES[@]}"); else files=("${ZSTD_FILES[@]}"); fi
  mkdir -p "$WORK/$cb.$tag"
  for f in "${files[@]}"; do
    b="$(basename "$f" .c)"
    (cd "$REG" && clang-14 "$@" -S -emit-llvm "$f" -o "$WORK/$cb.$tag/$b.ll")
    lls+=("$WORK/$cb.$tag/$b.ll")
  done
  llvm-link-14 -S "${lls[@]}" -o "$OUT/$cb/$cb.$tag.ll"
  echo "  $cb/$cb.$tag.ll"
}

# printers REL [cgsccs] : opt-14 printer outputs next to $OUT/REL.ll, run from $OUT
printers() {
  local rel="$1"
  (cd "$OUT" &&
    opt-14 -passes='function(print<domtree>,print<loops>)' -disable-output "$rel.ll" 2> "$rel.domloops.txt" &&
    opt-14 -passes=print-lcg -disable-output "$rel.ll" 2> "$rel.lcg.txt" &&
    opt-14 -enable-new-pm=0 -print-cfg-sccs -disable-output "$rel.ll" 2> "$rel.cfgsccs.txt")
  if [ "${2:-}" = cgsccs ]; then
    (cd "$OUT" && opt-14 -enable-new-pm=0 -print-callgraph-sccs -disable-output "$rel.ll" 2> "$rel.cgsccs.txt")
  fi
}

# answers REL : X.cfg.json and X.lcg.json for $OUT/REL.ll
answers() {
  local x="$OUT/$1" cg=()
  [ -f "$x.cgsccs.txt" ] && cg=(--cgsccs "$x.cgsccs.txt")
  python3 "$ANSWERS" cfg "$x.ll" --domloops "$x.domloops.txt" --cfgsccs "$x.cfgsccs.txt" -o "$x.cfg.json"
  python3 "$ANSWERS" lcg "$x.ll" --lcg "$x.lcg.txt" "${cg[@]}" -o "$x.lcg.json"
}

# nvptx_tu CB FILE FLAVOUR(14|19) FLAGS... : PTX of one TU; prints a PTX_STATUS.tsv row
nvptx_tu() {
  local cb="$1" f="$2" v="$3"; shift 3
  local tu nv ptx dropped=() funcs=() input fn dl
  tu="$(basename "$f" .c)"
  nv="nv.$tu.$v.ll"
  if [ "$v" = 14 ]; then ptx="$OUT/$cb/nvptx/$tu.ptx"; else ptx="$OUT/$cb/nvptx/$tu.llvm19.ptx"; fi
  if ! (cd "$REG" && "clang-$v" --target=nvptx64-nvidia-cuda -O2 -fno-discard-value-names \
          "${NVPTX_INC[@]}" "$@" -S -emit-llvm "$f" -o "$WORK/$nv" 2> "$WORK/$nv.clang.log"); then
    printf '%s\tllvm%s\tfailed\t-\t-\n' "$tu" "$v"
    return
  fi
  input="$nv"
  # (in a subshell that outlives llc, so that an llc crash is logged, not reported here)
  while ! ( "llc-$v" -march=nvptx64 -mcpu=sm_70 "$WORK/$input" -o "$ptx" 2> "$WORK/$nv.llc.log"
            exit $? ) 2>/dev/null; do
    fn="$(sed -n 's/^In function: //p' "$WORK/$nv.llc.log" | head -1)"
    if [ -z "$fn" ] || [[ " ${dropped[*]:-} " == *" $fn "* ]]; then
      rm -f "$ptx"
      printf '%s\tllvm%s\tok\tfailed\t%s\n' "$tu" "$v" "$(IFS=,; echo "${dropped[*]:-}")"
      return
    fi
    dropped+=("$fn")
    input="nv.$tu.$v.dropped.ll"
    funcs=()
    for fn in "${dropped[@]}"; do funcs+=("--func=$fn"); done
    (cd "$WORK" && "llvm-extract-$v" --delete "${funcs[@]}" -S "$nv" -o "$input")
  done
  if [ "$v" = 14 ]; then cp "$WORK/$input" "$OUT/$cb/nvptx/$tu.nvptx.O2.ll"; fi
  dl="$(IFS=,; echo "${dropped[*]:-}")"
  printf '%s\tllvm%s\tok\tok\t%s\n' "$tu" "$v" "$dl"
}

sources_txt() {  # CB FLAGS FILES...
  local cb="$1" flags="$2"; shift 2
  printf 'code base: %s\nflags: %s\nsources (relative to the cargo registry src folder):\n' "$cb" "$flags"
  printf '  %s\n' "$@"
}

licenses() {  # CB
  if [ "$1" = zlib ]; then
    cp "$REG/$LIBZ/src/zlib/LICENSE" "$OUT/zlib/LICENSE"
  else
    {
      echo "zstd 1.5.7 (the zstd/lib sources of the crate zstd-sys 2.1.2+zstd.1.5.7) is dual-licensed:"
      echo "the BSD license below (zstd/LICENSE) or the GNU GPLv2 after it (zstd/COPYING), at your"
      echo "option. lib/dictBuilder/divsufsort.c (libdivsufsort-lite) carries its own MIT-style"
      echo "notice, reproduced at the end."
      echo
      echo "==== zstd/LICENSE ===================================================================="
      echo
      cat "$REG/$ZSTD/zstd/LICENSE"
      echo
      echo "==== zstd/COPYING ===================================================================="
      echo
      cat "$REG/$ZSTD/zstd/COPYING"
      echo
      echo "==== zstd/lib/dictBuilder/divsufsort.c (header) ======================================"
      echo
      sed -n '1,/^ \*\//p' "$REG/$ZSTD/zstd/lib/dictBuilder/divsufsort.c"
    } > "$OUT/zstd/LICENSE"
  fi
}

# ---- build -------------------------------------------------------------------------------
for cb in zlib zstd; do
  [ -n "$ONLY" ] && [ "$ONLY" != "$cb" ] && continue
  echo "== $cb"
  rm -rf "${OUT:?}/$cb"
  mkdir -p "$OUT/$cb/nvptx"
  if [ "$cb" = zlib ]; then
    FLAGS="$ZLIB_FLAGS"; FILES=("${ZLIB_FILES[@]}")
  else
    FLAGS="$ZSTD_FLAGS"; FILES=("${ZSTD_FILES[@]}")
  fi
  sources_txt "$cb" "$FLAGS" "${FILES[@]}" > "$OUT/$cb/SOURCES.txt"
  licenses "$cb"
  # shellcheck disable=SC2086
  link_cb "$cb" O2 -O2 -fno-discard-value-names $FLAGS
  TAGS=(O2)
  if [ "$cb" = zlib ]; then
    # shellcheck disable=SC2086
    link_cb "$cb" O0 -O0 -Xclang -disable-O0-optnone -fno-discard-value-names $FLAGS
    # shellcheck disable=SC2086
    link_cb "$cb" O2.nonames -O2 $FLAGS
    TAGS=(O0 O2 O2.nonames)
  fi
  # nvptx, one TU at a time
  printf 'tu\tflavour\tclang\tllc\tdropped_functions\n' > "$OUT/$cb/nvptx/PTX_STATUS.tsv"
  for f in "${FILES[@]}"; do
    tu="$(basename "$f" .c)"
    if [ "$cb" = zstd ] && [ "${FULL:-0}" != 1 ] && [[ "$ZSTD_BIG" == *" $tu "* ]]; then
      printf '%s\t-\tskipped (size; FULL=1 keeps it)\t-\t-\n' "$tu" >> "$OUT/$cb/nvptx/PTX_STATUS.tsv"
      continue
    fi
    # shellcheck disable=SC2086
    nvptx_tu "$cb" "$f" 14 $FLAGS >> "$OUT/$cb/nvptx/PTX_STATUS.tsv"
    if [ "$cb" = zlib ]; then
      # shellcheck disable=SC2086
      nvptx_tu "$cb" "$f" 19 $FLAGS >> "$OUT/$cb/nvptx/PTX_STATUS.tsv"
    fi
  done
  echo "  $cb/nvptx: $(grep -c 'ok	ok' "$OUT/$cb/nvptx/PTX_STATUS.tsv") PTX files"
  # printers and answers
  for t in "${TAGS[@]}"; do
    printers "$cb/$cb.$t" cgsccs
    answers "$cb/$cb.$t"
  done
  for ll in "$OUT/$cb"/nvptx/*.nvptx.O2.ll; do
    rel="${ll#"$OUT"/}"
    printers "${rel%.ll}"
    answers "${rel%.ll}"
  done
  for p in "$OUT/$cb"/nvptx/*.ptx; do
    python3 "$ANSWERS" ptx "$p" -o "$p.cfg.json"
  done
  echo "  answers written"
  find "$OUT/$cb" -type f \( -name '*.ll' -o -name '*.ptx' -o -name '*.json' -o -name '*.txt' \) \
       ! -name SOURCES.txt -print0 | xargs -0 gzip -9 -n -f
done
echo "output: $OUT"

# ---- optional comparison with the committed corpus ---------------------------------------
if [ "$CHECK" = 1 ]; then
  bad=0
  for cb in zlib zstd; do
    [ -n "$ONLY" ] && [ "$ONLY" != "$cb" ] && continue
    ref="$REPO/tests/corpus/llvm/$cb"
    while IFS= read -r -d '' r; do
      rel="${r#"$ref"/}"
      o="$OUT/$cb/$rel"
      if [ ! -f "$o" ]; then echo "missing: $cb/$rel"; bad=1; continue; fi
      case "$rel" in
        *.json.gz) python3 "$ANSWERS" compare "$r" "$o" >/dev/null || { echo "differs: $cb/$rel"; python3 "$ANSWERS" compare "$r" "$o" | head -5; bad=1; } ;;
        *.ptx.gz)
          # llc's NVPTX printer emits module-level .global lines in an order that varies from
          # run to run (it walks a pointer-keyed set): accept a difference in line order only
          if ! cmp -s <(gzip -dc "$r") <(gzip -dc "$o"); then
            if cmp -s <(gzip -dc "$r" | sort) <(gzip -dc "$o" | sort); then
              echo "same up to the order of lines (llc's .global order): $cb/$rel"
            else
              echo "differs: $cb/$rel"; bad=1
            fi
          fi ;;
        *.gz) cmp -s <(gzip -dc "$r") <(gzip -dc "$o") || { echo "differs: $cb/$rel"; bad=1; } ;;
        *) cmp -s "$r" "$o" || { echo "differs: $cb/$rel"; bad=1; } ;;
      esac
    done < <(find "$ref" -type f -print0 | sort -z)
    while IFS= read -r -d '' o; do
      rel="${o#"$OUT/$cb"/}"
      [ -f "$ref/$rel" ] || echo "extra (not committed): $cb/$rel"
    done < <(find "$OUT/$cb" -type f -print0 | sort -z)
  done
  if [ "$bad" = 0 ]; then echo "check: every committed file reproduced"; else echo "check: differences above"; exit 1; fi
fi
