#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets under fuzz/corpus/<target> from real inputs:
#   llvm_ir, ptx: the corpus's .ll/.ptx (tests/corpus/llvm, gzipped there: *.ll.gz,
#                 *.ptx.gz), data/default, the fixtures and (if present) $EXTRA_LL_PTX
#                 folders; files over 32 KB are cut into pieces of whole functions, each
#                 with the file's opening declarations.
#   clang_json, world: the fixtures' JSON (minified) and, if present, the first 64 KB-ish
#                 subtrees of the CUDA corpus dumps (filtered: $CUDA_JSON; full: $CUDA_FULL)
#                 cut at top-level decls; scripts/corpus/cuda.sh makes the dumps.
#   binary_il: generated TUs and device IL of the clang fixtures (needs the ilkit binary).
# Usage: bash fuzz/seeds.sh [ILKIT_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
ILKIT=${1:-target/release/ilkit}
CORPUS=${CORPUS:-tests/corpus}
out=fuzz/corpus
mkdir -p "$out"/{llvm_ir,ptx,clang_json,world,binary_il}
python3 - "$CORPUS" "$out" ${EXTRA_LL_PTX:-} <<'PY'
import gzip, os, sys, hashlib, re
corpus, out = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
def files(root, exts):
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.endswith(exts):
                yield os.path.join(d, f)
def put(target, data):
    h = hashlib.sha1(data).hexdigest()[:16]
    open(os.path.join(out, target, h), 'wb').write(data)
def pieces(text, start_re, limit=32 << 10):
    if len(text) <= limit:
        return [text]
    lines = text.split('\n')
    starts = [i for i, l in enumerate(lines) if re.match(start_re, l)]
    if not starts:
        return [text[:limit]]
    head = '\n'.join(lines[:starts[0]])[:limit // 2]
    res, cur = [], []
    bounds = starts + [len(lines)]
    for a, b in zip(bounds, bounds[1:]):
        chunk = '\n'.join(lines[a:b])
        if len(chunk) > limit:
            continue
        if sum(map(len, cur)) + len(chunk) > limit - len(head):
            res.append(head + '\n' + '\n'.join(cur)); cur = []
        cur.append(chunk)
    if cur:
        res.append(head + '\n' + '\n'.join(cur))
    return res[:40]
def text(f):
    if f.endswith('.gz'):
        return gzip.open(f, 'rt', errors='replace').read()
    return open(f, errors='replace').read()
roots = [os.path.join(corpus, 'llvm'), 'data/default', 'tests/fixtures'] + extra
for root in roots:
    if not os.path.isdir(root):
        continue
    for f in files(root, ('.ll', '.ll.gz')):
        for p in pieces(text(f), r'define '):
            put('llvm_ir', p.encode())
    for f in files(root, ('.ptx', '.ptx.gz')):
        for p in pieces(text(f), r'\.(visible |weak |extern )?\.(entry|func)'):
            put('ptx', p.encode())
PY
# clang JSON: the fixtures, minified.
for f in tests/fixtures/clang/*.json.gz; do
  zcat "$f" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), separators=(",",":")))' > "$out/clang_json/$(basename "$f" .json.gz).json"
  cp "$out/clang_json/$(basename "$f" .json.gz).json" "$out/world/"
done
# binary IL: generated TUs and device IL.
if [ -x "$ILKIT" ]; then
  for n in 1 2 3 4; do "$ILKIT" il gen --scale 0.01 --seed $n -o "$out/binary_il/gen$n.il" > /dev/null; done
  for f in tests/fixtures/clang/*.json.gz; do
    "$ILKIT" il keep "$f" --out "$out/binary_il/$(basename "$f" .json.gz).dev.il" > /dev/null
  done
fi
for t in llvm_ir ptx clang_json world binary_il; do echo "$t: $(ls "$out/$t" | wc -l) seeds"; done
# clang JSON from the CUDA corpus dumps, if present: translation units cut into pieces of
# consecutive top-level declarations under 64 KB, from filtered dumps (the default scope
# of scripts/corpus/cuda.sh) and from a full dump (KEEP_FULL=1), minified.
python3 - "$out" "${CUDA_JSON:-tests/corpus/cuda/json}" "${CUDA_FULL:-}" <<'PY'
import gzip, hashlib, json, os, sys
out, filtered, full = sys.argv[1], sys.argv[2], sys.argv[3]
def cut(tu, limit=64 << 10, most=12):
    inner, made, cur = tu.get('inner', []), 0, []
    base = {k: v for k, v in tu.items() if k != 'inner'}
    for d in inner:
        s = json.dumps(d, separators=(',', ':'))
        if len(s) > limit:
            continue
        if sum(len(x) for x in cur) + len(s) > limit:
            yield dict(base, inner=[json.loads(x) for x in cur]); cur = []; made += 1
            if made >= most:
                return
        cur.append(s)
    if cur:
        yield dict(base, inner=[json.loads(x) for x in cur])
def emit(tu):
    for piece in cut(tu):
        data = json.dumps(piece, separators=(',', ':')).encode()
        h = hashlib.sha1(data).hexdigest()[:16]
        for t in ('clang_json', 'world'):
            open(os.path.join(out, t, h), 'wb').write(data)
if os.path.isdir(filtered):
    for f in sorted(os.listdir(filtered)):
        p = os.path.join(filtered, f)
        if f.endswith('.json.gz') and os.path.getsize(p) < 2 << 20:
            emit(json.load(gzip.open(p)))
if full and os.path.isfile(full):
    emit(json.load(open(full)))
PY
for t in clang_json world; do echo "$t: $(ls "$out/$t" | wc -l) seeds"; done
# C ABI: the first byte picks the input (0 a CSR graph as little-endian u32s: node count,
# root, indptr, indices; 1 `.ll`, 2 `.ptx`, 3 clang JSON), then the bytes.
python3 - "$out" <<'PY'
import glob, gzip, os, struct, sys
out = os.path.join(sys.argv[1], 'capi')
os.makedirs(out, exist_ok=True)
def put(name, mode, data):
    open(os.path.join(out, name), 'wb').write(bytes([mode]) + data)
graphs = {
    'diamond': [4, 0, 0, 2, 3, 4, 4, 1, 2, 3, 3],
    'cycle': [3, 0, 0, 1, 2, 3, 1, 2, 0],
    'loop_with_exit': [4, 0, 0, 1, 3, 4, 4, 1, 2, 3, 1],
    'unreachable': [3, 0, 0, 1, 1, 1, 1],
}
for name, words in graphs.items():
    put('graph_' + name, 0, b''.join(struct.pack('<I', w) for w in words))
for mode, pattern in ((1, 'data/default/*.ll'), (2, 'data/default/*.ptx')):
    for p in sorted(glob.glob(pattern)):
        data = open(p, 'rb').read()
        if len(data) <= 64 << 10:
            put(os.path.basename(p), mode, data)
for p in sorted(glob.glob('tests/fixtures/clang/*.json.gz')):
    data = gzip.open(p).read()
    if len(data) <= 64 << 10:
        put(os.path.basename(p)[:-3], 3, data)
print(f"capi: {len(os.listdir(out))} seeds")
PY
