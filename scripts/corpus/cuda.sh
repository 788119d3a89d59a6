#!/usr/bin/env bash
# Regenerate the clang JSON ASTs of the real CUDA / C / C++ corpus in tests/corpus/cuda.
#
#   scripts/corpus/cuda.sh                    # dump + filter every TU of MANIFEST.tsv into $OUT
#   scripts/corpus/cuda.sh --only candle_sort # one TU (repeat --only for more)
#   scripts/corpus/cuda.sh --fixtures         # the small in-repo set: tests/corpus/cuda/json/
#                                             # and tests/corpus/cuda/defines/ (FIXTURES below)
#   scripts/corpus/cuda.sh --fetch            # first fetch the crates again with cargo and
#                                             # refresh tests/corpus/cuda/src/ from them
#
# Needs clang-19 (installed with apt-get on Debian bookworm when missing) and python3; orjson
# (pip) is optional and makes the filter about 3x faster (the output is the same). No NVIDIA
# SDK: CUDA is parsed with -nocudainc and the headers in tests/corpus/cuda/stub/ (stub/cuda_stub.h
# is force-included). The largest TU needs about 5 GB of memory in the filter.
#
# Output, under $OUT (default: a new temporary folder, printed at the end):
#   json/<name>.json.gz          filtered AST (tools/ast_filter.py; FORMAT.md), gzip -6 -n
#                                (GZIP_JSON=0 keeps plain .json)
#   defines/<name>.defines.txt   the functions clang itself emits for the device: the mangled
#                                name of every `define` of the same compile with -S -emit-llvm
#                                (CUDA TUs; empty for the C and C++ TUs, which have no device code)
#   stats/<name>.stats.json, stats/STATUS.tsv, SUMMARY.md   statistics (tools/summarize.py)
# With --fixtures, json/ and defines/ go to tests/corpus/cuda/ (OUT is ignored) and the
# statistics to the scratch folder. Environment: OUT, WORK (scratch; default a new temporary
# folder, removed at the end unless KEEP_FULL=1, which keeps the unfiltered dumps there),
# SCOPE=project|main, ARCH=sm_80, CLANG=clang++-19, GZIP_JSON=1.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CORPUS="$REPO/tests/corpus/cuda"
STUB="$CORPUS/stub"
SRC="$CORPUS/src"
TOOLS="$CORPUS/tools"
MANIFEST="$CORPUS/MANIFEST.tsv"
# the in-repo dump set: small TUs, about 1.5 MB gzipped together
FIXTURES="candle_affine candle_cast ggml_alloc candle_moe_wmma candle_sort cxx_cxx"
SCOPE="${SCOPE:-project}"
ARCH="${ARCH:-sm_80}"
CLANG="${CLANG:-clang++-19}"
FETCH=0
MODE=all
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fetch) FETCH=1 ;;
    --only) ONLY+=("$2"); shift ;;
    --fixtures) MODE=fixtures ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
if [ "$MODE" = fixtures ]; then
  [ "${#ONLY[@]}" -gt 0 ] || read -r -a ONLY <<< "$FIXTURES"
  OUT="$CORPUS"
fi
OUT="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/corpus-cuda.XXXXXX")}"
if [ -z "${WORK:-}" ]; then
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/corpus-cuda-work.XXXXXX")"
  [ "${KEEP_FULL:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
fi
OUT_JSON="$OUT/json"
OUT_DEF="$OUT/defines"
if [ "$MODE" = fixtures ]; then STATS="$WORK/stats"; else STATS="$OUT/stats"; fi

selected() {  # NAME -> true when it is to be built
  [ "${#ONLY[@]}" -eq 0 ] && return 0
  local x
  for x in "${ONLY[@]}"; do [ "$x" = "$1" ] && return 0; done
  return 1
}
for x in "${ONLY[@]}"; do
  grep -q "^$x	" "$MANIFEST" || { echo "not in MANIFEST.tsv: $x" >&2; exit 2; }
done

# ---- toolchain -------------------------------------------------------------------------
if ! command -v "$CLANG" >/dev/null 2>&1; then
  echo "installing clang-19 with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19 >/dev/null
fi

# ---- flags (the ones that work without the CUDA SDK; see FORMAT.md) ---------------------
CUDA_FLAGS=(-x cuda -std=c++17 -nocudainc -nocudalib --cuda-gpu-arch="$ARCH"
            --cuda-device-only -Wno-unknown-cuda-version -isystem "$STUB" -include cuda_stub.h)
CXX_FLAGS=(-x c++ -std=c++17)
C_FLAGS=(-x c -std=c11)
# device code generation: without a detected SDK version clang assumes an old PTX ISA and
# rejects the sync shuffles, hence +ptx70
EMIT_FLAGS=(-Xclang -target-feature -Xclang +ptx70 -S -emit-llvm)

fl=()
set_flags() {  # LANG: fl = its flags
  case "$1" in
    cuda) fl=("${CUDA_FLAGS[@]}") ;;
    c++) fl=("${CXX_FLAGS[@]}") ;;
    c) fl=("${C_FLAGS[@]}") ;;
    *) echo "unknown language $1" >&2; exit 2 ;;
  esac
}

# ---- optional: fetch the crates with cargo and refresh src/ ------------------------------
if [ "$FETCH" = 1 ]; then
  command -v cargo >/dev/null 2>&1 || { echo "--fetch needs cargo" >&2; exit 1; }
  FD="$WORK/fetch"
  mkdir -p "$FD/src"
  cat > "$FD/Cargo.toml" <<'EOF'
[package]
name = "corpus-cuda-fetch"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
candle-kernels = { version = "=0.11.1", default-features = false }
llama-cpp-sys-2 = { version = "=0.1.161", default-features = false }
cxx = { version = "=1.0.205", default-features = false }
EOF
  echo 'fn main() {}' > "$FD/src/main.rs"
  (cd "$FD" && cargo fetch -q)
  REG=""
  for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    if [ -d "${d}candle-kernels-0.11.1" ]; then REG="${d%/}"; break; fi
  done
  [ -n "$REG" ] || { echo "crate sources not found in the cargo registry" >&2; exit 1; }
  grep -v '^#' "$MANIFEST" | while IFS=$'\t' read -r name lang pkg root main extra; do
    selected "$name" || continue
    proot="$REG/$pkg/$root"
    set_flags "$lang"
    ex=${extra//\{root\}/$proot}
    preal="$(realpath "$REG/$pkg")"
    # every file the TU includes (make-style list: split at blanks and backslashes); copy
    # those inside the package
    # shellcheck disable=SC2086,SC1003,SC2020
    { (cd "$proot" && "$CLANG" "${fl[@]}" $ex -M "$main" 2>/dev/null) || true; } | tr ' \\' '\n\n' |
      { grep -v -e '^$' -e ':$' || true; } |
      while read -r dep; do
        case "$dep" in /*) abs="$dep" ;; *) abs="$proot/$dep" ;; esac
        abs="$(realpath "$abs")"
        case "$abs" in "$preal"/*)
          rel="${abs#"$preal"/}"
          mkdir -p "$SRC/$pkg/$(dirname "$rel")"
          cp "$abs" "$SRC/$pkg/$rel" ;;
        esac
      done
    for lic in LICENSE LICENSE-MIT LICENSE-APACHE llama.cpp/LICENSE Cargo.toml; do
      if [ -f "$REG/$pkg/$lic" ]; then
        mkdir -p "$SRC/$pkg/$(dirname "$lic")"
        cp "$REG/$pkg/$lic" "$SRC/$pkg/$lic"
      fi
    done
  done
fi

# ---- dump + filter + defines ---------------------------------------------------------------
mkdir -p "$WORK" "$OUT_JSON" "$OUT_DEF" "$STATS"
grep -v '^#' "$MANIFEST" | while IFS=$'\t' read -r name lang pkg root main extra; do
  selected "$name" || continue
  proot="$SRC/$pkg/$root"
  set_flags "$lang"
  ex=${extra//\{root\}/$proot}
  t0=$(date +%s)
  full="$WORK/$name.full.json"
  # shellcheck disable=SC2086
  if (cd "$proot" && "$CLANG" "${fl[@]}" $ex -fsyntax-only -Xclang -ast-dump=json "$main" \
        > "$full" 2> "$WORK/$name.stderr"); then
    parse=ok
  else
    parse="errors($(grep -c 'error:' "$WORK/$name.stderr" || true))"
  fi
  fbytes=$(stat -c %s "$full")
  python3 "$TOOLS/ast_filter.py" --in "$full" --main "$proot/$main" --project-root "$proot" \
      --stub-root "$STUB" --clang-cwd "$proot" --scope "$SCOPE" --out "$OUT_JSON/$name.json" \
      --stats "$STATS/$name.stats.json"
  [ "${KEEP_FULL:-0}" = 1 ] || rm -f "$full"
  rbytes=$(stat -c %s "$OUT_JSON/$name.json")
  if [ "${GZIP_JSON:-1}" = 1 ]; then
    gzip -6 -n -f "$OUT_JSON/$name.json"
    zbytes=$(stat -c %s "$OUT_JSON/$name.json.gz")
  else
    zbytes=-
  fi
  # the device functions clang emits (CUDA only: the C and C++ TUs have no device code)
  if [ "$lang" = cuda ]; then
    # shellcheck disable=SC2086
    (cd "$proot" && "$CLANG" "${fl[@]}" $ex "${EMIT_FLAGS[@]}" -o "$WORK/$name.ll" "$main" \
        2> "$WORK/$name.emit.stderr")
    sed -n 's/^define [^@]*@\("[^"]*"\|[^( ]*\)(.*/\1/p' "$WORK/$name.ll" | tr -d '"' \
        > "$OUT_DEF/$name.defines.txt"
    rm -f "$WORK/$name.ll"
  else
    : > "$OUT_DEF/$name.defines.txt"
  fi
  ndef=$(wc -l < "$OUT_DEF/$name.defines.txt")
  t1=$(date +%s)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$lang" "$parse" "$fbytes" "$rbytes" "$zbytes" \
      "$((t1 - t0))" > "$STATS/$name.status"
  echo "$name: $parse full=$fbytes filtered=$rbytes gz=$zbytes device_functions=$ndef $((t1 - t0))s"
done
{ printf 'name\tlang\tparse\tfull_json_bytes\tfiltered_bytes\tfiltered_gz_bytes\tseconds\n'
  cat "$STATS"/*.status; } > "$STATS/STATUS.tsv"
if [ "$MODE" = fixtures ]; then
  echo "wrote $OUT_JSON and $OUT_DEF"
else
  python3 "$TOOLS/summarize.py" "$STATS" > "$OUT/SUMMARY.md"
  echo "output: $OUT (SUMMARY.md)"
fi
[ "${KEEP_FULL:-0}" = 1 ] && echo "unfiltered dumps kept in $WORK"
exit 0
