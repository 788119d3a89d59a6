#!/usr/bin/env bash
# Builds the C ABI (release), compiles the C and C++ examples with the system cc / c++
# against include/ilkit.h — the C one linked with the static library, the C++ one with
# the shared library — runs both, and compares their output line by line with the
# answers of the Rust API (capi/examples/summary.rs).
#
#   bash capi/run-examples.sh            (CARGO_TARGET_DIR is honoured)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release -p ilkit-capi --lib --example summary
lib="$target/release"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
CC="${CC:-cc}"
CXX="${CXX:-c++}"
# static: the archive plus what Rust's standard library needs from the system
"$CC" -std=c99 -O2 -Wall -Wextra -Werror -I include examples/c/ilkit_example.c \
  "$lib/libilkit_capi.a" -lpthread -ldl -lm -o "$out/ilkit_example_c"
# shared: -rpath so the program finds libilkit_capi.so where cargo put it
"$CXX" -std=c++17 -O2 -Wall -Wextra -Werror -I include examples/cpp/ilkit_example.cpp \
  -L "$lib" -lilkit_capi -Wl,-rpath,"$lib" -o "$out/ilkit_example_cpp"
"$lib/examples/summary" "$root" >"$out/rust.txt"
"$out/ilkit_example_c" "$root" >"$out/c.txt"
"$out/ilkit_example_cpp" "$root" >"$out/cpp.txt"
diff -u "$out/rust.txt" "$out/c.txt"
diff -u "$out/rust.txt" "$out/cpp.txt"
cat "$out/c.txt"
echo "C and C++ examples: $(wc -l <"$out/c.txt") lines each, equal to the Rust API's"
