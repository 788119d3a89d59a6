#!/usr/bin/env bash
# GNU parallel (or xargs -P) on one machine or over ssh logins (`parallel -S host1,host2`):
# N shards, each writing JSON Lines to a shared folder, then one merge.
#
#   bash deploy/gnu-parallel.sh CORPUS OUT [N]
#
# The shard is I/N with I counted from 0, so the one-liner passes `seq 0 N-1`:
#   seq 0 3 | parallel -j4 'ilkit scan CORPUS --shard {}/4 --json > OUT/part-{}.jsonl'
# (with xargs: seq 0 3 | xargs -P4 -I{} sh -c 'ilkit scan CORPUS --shard {}/4 --json > OUT/part-{}.jsonl')
set -euo pipefail
CORPUS=${1:?usage: gnu-parallel.sh CORPUS OUT [N]}
OUT=${2:?usage: gnu-parallel.sh CORPUS OUT [N]}
N=${3:-4}
mkdir -p "$OUT"
seq 0 $((N - 1)) | parallel -j "$N" "ilkit scan '$CORPUS' --shard {}/$N --jobs 1 --json > '$OUT/part-{}.jsonl'"
ilkit merge "$OUT"
