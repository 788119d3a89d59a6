#!/usr/bin/env bash
# A Slurm job array that scans one corpus in shards (4 unless --array says otherwise); each
# task writes its JSON Lines to a shared folder, and a dependent job merges them into
# OUT/summary.txt.
#
# Run with bash, it submits both jobs and prints their ids; options given to it go to the
# array's sbatch and override the #SBATCH lines below:
#   CORPUS=/scratch/corpus OUT=/scratch/ilkit-out bash deploy/slurm-array.sh
#   CORPUS=... OUT=... ILKIT=/scratch/bin/ilkit bash deploy/slurm-array.sh --array=0-7 --mem=2G
# By hand, the same two jobs:
#   CORPUS=... OUT=... sbatch --parsable deploy/slurm-array.sh          # prints <jobid>
#   sbatch --dependency=afterok:<jobid> --kill-on-invalid-dep=yes --wrap "ilkit merge $OUT > $OUT/summary.txt"
#
# CORPUS and OUT must be paths that every node sees. Options for both jobs (account,
# partition, QOS) go in sbatch's own variables: SBATCH_ACCOUNT, SBATCH_PARTITION, ...
# `--shard auto` reads SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN/MAX (or _COUNT), so
# any --array range works (0-3, 1-4, 10-13 ...). A task whose scan finished but had files
# that failed to parse keeps its shard and succeeds, so the merge still runs: the summary
# counts those files as failed and the merge job exits 1.
#SBATCH --job-name=ilkit-scan
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=02:00:00
set -euo pipefail
: "${CORPUS:?set CORPUS to the folder to scan}"
: "${OUT:?set OUT to a shared output folder}"
ILKIT=${ILKIT:-ilkit}

if [[ -z ${SLURM_ARRAY_TASK_ID:-} ]]; then
  # Not an array task: submit the array and the merge that waits for all of its tasks.
  command -v sbatch >/dev/null || { echo "slurm-array.sh: no sbatch on PATH" >&2; exit 2; }
  if compgen -G "$OUT/*.jsonl" >/dev/null; then
    echo "slurm-array.sh: $OUT already holds *.jsonl files, which the merge would mix with" \
      "this run's shards; give an empty or new OUT" >&2
    exit 2
  fi
  mkdir -p "$OUT/logs"
  CORPUS=$(readlink -f "$CORPUS")
  OUT=$(readlink -f "$OUT")
  if [[ $ILKIT == */* ]]; then ILKIT=$(readlink -f "$ILKIT"); fi
  export CORPUS OUT ILKIT
  script=$(readlink -f "${BASH_SOURCE[0]}")
  array=$(sbatch --parsable --output="$OUT/logs/scan-%A_%a.out" "$@" "$script")
  array=${array%%;*}
  merge=$(sbatch --parsable --job-name=ilkit-merge --dependency="afterok:$array" \
    --kill-on-invalid-dep=yes --cpus-per-task=1 --mem="${MERGE_MEM:-4G}" --time=00:30:00 \
    --output="$OUT/logs/merge-%j.out" \
    --wrap "$(printf '%q merge %q > %q' "$ILKIT" "$OUT" "$OUT/summary.txt")")
  merge=${merge%%;*}
  echo "array_job=$array merge_job=$merge summary=$OUT/summary.txt"
  exit 0
fi

mkdir -p "$OUT"
part="$OUT/part-${SLURM_ARRAY_TASK_ID}.jsonl"
rc=0
"$ILKIT" scan "$CORPUS" --shard auto --jobs "${SLURM_CPUS_PER_TASK:-0}" --json \
  > "$part.tmp" || rc=$?
# Exit 1 with the shard trailer written means files failed but the shard is whole.
if ((rc == 1)) && tail -n 1 "$part.tmp" | grep -q '"schema":"ilkit-scan-shard/1"'; then
  echo "slurm-array.sh: files above failed; the shard is complete and the merge counts them" >&2
  rc=0
fi
((rc == 0)) || exit "$rc"
# Renamed only when whole, so `ilkit merge OUT` (which reads *.jsonl) never sees a torn shard.
mv -f "$part.tmp" "$part"
