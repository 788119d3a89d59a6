#!/usr/bin/env bash
# A Slurm job array that scans one corpus in 4 shards; each task writes its JSON Lines to
# a shared directory, and a dependent job merges them.
#
#   CORPUS=/shared/corpus OUT=/shared/ilkit-out sbatch deploy/slurm-array.sh
#   sbatch --dependency=afterok:<jobid> --wrap "ilkit merge $OUT > $OUT/summary.txt"
#
# `--shard auto` reads SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN/MAX (or _COUNT), so
# any --array range works (0-3, 1-4, 10-13 ...).
#SBATCH --job-name=ilkit-scan
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=02:00:00
set -euo pipefail
: "${CORPUS:?set CORPUS to the folder to scan}"
: "${OUT:?set OUT to a shared output folder}"
mkdir -p "$OUT"
ilkit scan "$CORPUS" --shard auto --jobs "${SLURM_CPUS_PER_TASK:-0}" --json \
  > "$OUT/part-${SLURM_ARRAY_TASK_ID}.jsonl"
