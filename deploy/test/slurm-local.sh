#!/usr/bin/env bash
# An end-to-end test of deploy/slurm-array.sh on a real Slurm: installs Slurm and MUNGE from
# Debian's packages, starts a one-node cluster on this machine, submits the array and its
# dependent merge over a corpus, waits for both, and checks that the merged summary has the
# same counters (and the same per-file records) as one unsharded scan of the same files.
#
#   sudo bash deploy/test/slurm-local.sh [CORPUS]
#
# CORPUS       folder to scan (default tests/corpus/llvm/zlib, else tests/fixtures)
# ILKIT=PATH   the ilkit binary (default target/release/ilkit, built with cargo if missing)
# N=4          array tasks; ARRAY_FIRST=0 is the first task id (any offset works)
# STAGE=auto   scans CORPUS as it is, unless it holds .ll.gz/.ptx.gz files that the binary
#              cannot read: then (as with STAGE=always) a staged copy holding only its
#              compiler inputs (.ll, .ptx, .il, decompressing their .gz forms) is scanned;
#              STAGE=never scans CORPUS as it is in any case
# TIMEOUT=600  seconds to wait for the jobs
# WORK=/var/tmp/ilkit-slurm-test  config, state, logs, outputs (wiped at each start)
# PORT=6917    slurmctld's port (slurmd uses PORT+1), away from a system Slurm's 6817/6818
#
# Needs root and Debian's package registry (bookworm: slurm-wlm 22.05, munge). Runs the
# daemons directly (no systemd needed, none used), with proctrack/linuxproc and task/none
# so no cgroups are needed either. Stops the daemons it started on exit; a munged that was
# already running is used and left running.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${N:-4}
ARRAY_FIRST=${ARRAY_FIRST:-0}
STAGE=${STAGE:-auto}
case $STAGE in auto | always | never) ;; *) echo "slurm-local: STAGE must be auto, always or never" >&2; exit 2 ;; esac
TIMEOUT=${TIMEOUT:-600}
WORK=${WORK:-/var/tmp/ilkit-slurm-test}
PORT=${PORT:-6917}
T0=$SECONDS

log() { printf '[slurm-local %4ds] %s\n' $((SECONDS - T0)) "$*" >&2; }
die() {
  echo "slurm-local: FAIL: $*" >&2
  exit 1
}
alive() { # pid -> whether it runs (a zombie does not)
  [[ -n ${1:-} && -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}
stop_pid() { # pid name
  alive "$1" || return 0
  kill "$1" 2>/dev/null || true
  for _ in $(seq 50); do alive "$1" || return 0; sleep 0.2; done
  log "$2 (pid $1) ignored SIGTERM; killing it"
  kill -9 "$1" 2>/dev/null || true
}

[[ $EUID -eq 0 ]] || die "run as root (it installs packages and starts daemons)"

# --- inputs ----------------------------------------------------------------------------
if [[ $# -ge 1 ]]; then
  CORPUS=$1
elif [[ -d $REPO/tests/corpus/llvm/zlib ]]; then
  CORPUS=$REPO/tests/corpus/llvm/zlib
else
  CORPUS=$REPO/tests/fixtures
fi
[[ -d $CORPUS ]] || die "corpus folder $CORPUS not found"
CORPUS=$(readlink -f "$CORPUS")
if [[ -z ${ILKIT:-} ]]; then
  ILKIT=$REPO/target/release/ilkit
  if [[ ! -x $ILKIT ]]; then
    log "no $ILKIT: cargo build --release --bin ilkit"
    (cd "$REPO" && cargo build --release --bin ilkit) || die "cargo build failed"
  fi
fi
[[ -x $ILKIT ]] || die "ILKIT=$ILKIT is not an executable"
ILKIT=$(readlink -f "$ILKIT")

# --- packages --------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
  ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q slurm-wlm munge >"$WORK.apt.log" 2>&1; then
    apt-get update -q >>"$WORK.apt.log" 2>&1 || true
    apt-get install -y -q slurm-wlm munge >>"$WORK.apt.log" 2>&1 ||
      die "apt-get install slurm-wlm munge failed; see $WORK.apt.log"
  fi
fi
log "$(slurmd -V), munge $(dpkg-query -W -f '${Version}' munge 2>/dev/null || echo '?')"

# --- a clean work folder; daemons left by an earlier run of this script are stopped -----
for f in "$WORK/slurmd.pid" "$WORK/slurmctld.pid"; do
  if [[ -r $f ]] && alive "$(cat "$f")" &&
    tr '\0' ' ' <"/proc/$(cat "$f")/cmdline" | grep -q -- "$WORK/slurm.conf"; then
    log "stopping $(basename "$f" .pid) left by an earlier run"
    stop_pid "$(cat "$f")" "$(basename "$f" .pid)"
  fi
done
# A munged that an interrupted run started is adopted, so that this run stops it.
MUNGED_PID=''
if [[ -r $WORK/munged.pid ]] && alive "$(cat "$WORK/munged.pid")" &&
  grep -q munged "/proc/$(cat "$WORK/munged.pid")/comm" 2>/dev/null; then
  MUNGED_PID=$(cat "$WORK/munged.pid")
fi
rm -rf "$WORK"
mkdir -p "$WORK"/{state,spool,log,out,ref}
[[ -z $MUNGED_PID ]] || echo "$MUNGED_PID" >"$WORK/munged.pid"
export SLURM_CONF=$WORK/slurm.conf

CTLD_PID='' SLURMD_PID=''
cleanup() {
  local rc=$?
  set +e
  if [[ -n $CTLD_PID ]] && alive "$CTLD_PID"; then
    scancel --quiet --user=root 2>/dev/null
  fi
  stop_pid "$SLURMD_PID" slurmd
  stop_pid "$CTLD_PID" slurmctld
  stop_pid "$MUNGED_PID" munged
  if ((rc != 0)); then
    for f in "$WORK"/log/*.log; do
      [[ -s $f ]] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
    done
  fi
  log "daemons stopped; files kept in $WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge -----------------------------------------------------------------------------
if [[ -n $MUNGED_PID ]] && munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "munged (pid $MUNGED_PID) left by an earlier run; using it, and stopping it at the end"
elif munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  MUNGED_PID=
  log "munged already running; using it (and leaving it running)"
else
  if [[ ! -s /etc/munge/munge.key ]]; then
    log "creating /etc/munge/munge.key"
    install -d -o munge -g munge -m 700 /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
  install -d -o munge -g munge -m 755 /run/munge
  install -d -o munge -g munge -m 700 /var/lib/munge /var/log/munge
  rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged || die "munged did not start (see /var/log/munge/munged.log)"
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.2
  done
  munge -n | unmunge >/dev/null || die "munged started but a credential does not round-trip"
  MUNGED_PID=$(cat /run/munge/munged.pid 2>/dev/null || true)
  echo "$MUNGED_PID" >"$WORK/munged.pid"
  log "munged started (pid $MUNGED_PID)"
fi

# --- slurm.conf for this host ------------------------------------------------------------
for p in "$PORT" $((PORT + 1)); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    die "port $p is in use; set PORT to a free pair"
  fi
done
HOST=$(hostname -s)
# `slurmd -C` prints this machine's node line: NodeName=... CPUs=... RealMemory=...
NODE_LINE=$(slurmd -C 2>/dev/null | grep -m1 '^NodeName=' || true)
if [[ -z $NODE_LINE ]]; then
  NODE_LINE="NodeName=$HOST CPUs=$(nproc) RealMemory=$(free -m | awk '/^Mem:/{print $2}')"
fi
NODE=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$NODE_LINE")
cat >"$SLURM_CONF" <<EOF
# Written by deploy/test/slurm-local.sh: a one-node cluster for testing.
ClusterName=ilkit-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$WORK/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
MinJobAge=600
$NODE_LINE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
log "slurm.conf: $NODE_LINE"

# --- daemons ---------------------------------------------------------------------------
slurmctld -f "$SLURM_CONF" -c || die "slurmctld did not start"
for _ in $(seq 50); do [[ -s $WORK/slurmctld.pid ]] && break; sleep 0.2; done
CTLD_PID=$(cat "$WORK/slurmctld.pid" 2>/dev/null || true)
for _ in $(seq 50); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
scontrol ping | grep -q UP || die "slurmctld does not answer (scontrol ping)"
slurmd -f "$SLURM_CONF" -c || die "slurmd did not start"
for _ in $(seq 50); do [[ -s $WORK/slurmd.pid ]] && break; sleep 0.2; done
SLURMD_PID=$(cat "$WORK/slurmd.pid" 2>/dev/null || true)
log "slurmctld pid $CTLD_PID, slurmd pid $SLURMD_PID"
state=
for _ in $(seq 120); do
  state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || die "node $NODE is '$state', not idle: $(sinfo -R -h 2>/dev/null)"
log "sinfo: node $NODE idle"

# --- the corpus the jobs scan --------------------------------------------------------------
gz_ok=no
probe=$(find "$CORPUS" -type f \( -name '*.ll.gz' -o -name '*.ptx.gz' \) -print -quit)
if [[ -n $probe ]] && "$ILKIT" scan "$probe" --json >/dev/null 2>&1; then gz_ok=yes; fi
if [[ $STAGE == auto ]]; then
  if [[ -n $probe && $gz_ok == no ]]; then STAGE=always; else STAGE=never; fi
fi
if [[ $STAGE == never ]]; then
  SCAN=$CORPUS
else
  SCAN=$WORK/corpus
  mkdir -p "$SCAN"
  (
    cd "$CORPUS"
    find . -type f \( -name '*.ll' -o -name '*.ptx' -o -name '*.il' \
      -o -name '*.ll.gz' -o -name '*.ptx.gz' -o -name '*.il.gz' \) -print0
  ) | while IFS= read -r -d '' f; do
    mkdir -p "$SCAN/$(dirname "$f")"
    if [[ $f == *.gz && $gz_ok == no ]]; then
      gzip -dc "$CORPUS/$f" >"$SCAN/${f%.gz}"
    else
      cp "$CORPUS/$f" "$SCAN/$f"
    fi
  done
fi
nfiles=$(find "$SCAN" -type f | wc -l)
((nfiles > 0)) || die "no files in $SCAN"
if [[ -n $probe ]]; then
  log "the binary reads gzipped .ll/.ptx inputs: $gz_ok$([[ $gz_ok == no && $STAGE == always ]] && echo ' (staged decompressed)')"
fi
if [[ $STAGE == never ]]; then
  log "corpus $CORPUS, scanned as it is ($nfiles files in the folder)"
else
  log "corpus $CORPUS -> $SCAN: $nfiles compiler inputs"
fi

# --- submit through deploy/slurm-array.sh ------------------------------------------------
OUT=$WORK/out
ids=$(cd "$WORK" && CORPUS=$SCAN OUT=$OUT ILKIT=$ILKIT MERGE_MEM=1G \
  bash "$REPO/deploy/slurm-array.sh" --array="$ARRAY_FIRST-$((ARRAY_FIRST + N - 1))" \
  --cpus-per-task=1 --mem=1G --time=00:20:00) || die "submission failed"
log "submitted: $ids"
ARRAY_JOB=$(sed -n 's/.*array_job=\([0-9]*\).*/\1/p' <<<"$ids")
MERGE_JOB=$(sed -n 's/.*merge_job=\([0-9]*\).*/\1/p' <<<"$ids")
[[ -n $ARRAY_JOB && -n $MERGE_JOB ]] || die "could not read the job ids from: $ids"

# Meanwhile, the unsharded reference: one scan of the same files, merged the same way.
ref_rc=0
"$ILKIT" scan "$SCAN" --json >"$WORK/ref/all.jsonl" 2>"$WORK/ref/scan.err" || true
"$ILKIT" merge "$WORK/ref" >"$WORK/ref/summary.txt" 2>"$WORK/ref/merge.err" || ref_rc=$?

deadline=$((SECONDS + TIMEOUT))
while squeue -h -j "$ARRAY_JOB,$MERGE_JOB" 2>/dev/null | grep -q .; do
  ((SECONDS < deadline)) || die "jobs still queued or running after ${TIMEOUT}s: $(squeue -h -j "$ARRAY_JOB,$MERGE_JOB")"
  sleep 1
done
log "array and merge finished"

# --- verdict ---------------------------------------------------------------------------
# jobcomp/filetxt holds one line per finished job: JobState and ExitCode of each task.
tasks=$(grep -c "ArrayJobId=$ARRAY_JOB " "$WORK/jobcomp.log" 2>/dev/null || true)
bad=$(grep "ArrayJobId=$ARRAY_JOB " "$WORK/jobcomp.log" | grep -v 'JobState=COMPLETED' || true)
[[ ${tasks:-0} -eq $N ]] || die "$tasks of $N array tasks recorded in $WORK/jobcomp.log"
if [[ -n $bad ]]; then
  bad=$(sed -E 's/.* JobState=([A-Z_]+) .* ArrayTaskId=([0-9]+) .* ExitCode=([0-9:]+).*/task \2 \1 (exit \3)/' <<<"$bad" |
    sort | paste -sd, -)
  die "array tasks did not complete: $bad; their logs are in $OUT/logs"
fi
merge_line=$(grep "^JobId=$MERGE_JOB " "$WORK/jobcomp.log" || true)
[[ -n $merge_line ]] || die "merge job $MERGE_JOB never ran (cancelled?)"
merge_rc=$(sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' <<<"$merge_line")
[[ $merge_rc == "$ref_rc" ]] ||
  die "merge job exited $merge_rc, the unsharded merge $ref_rc: $merge_line"
[[ -s $OUT/summary.txt ]] || die "no $OUT/summary.txt"
parts=$(find "$OUT" -maxdepth 1 -name 'part-*.jsonl' | wc -l)
[[ $parts -eq $N ]] || die "$parts shard files in $OUT, expected $N"
grep -q "^ilkit merge: .* from $N inputs" "$OUT/summary.txt" || die "summary not from $N inputs"
grep -Eq "^ +shards +$N\$" "$OUT/summary.txt" || die "summary does not count $N shards"

counters() { grep -Ev '^ilkit merge:|wall time|throughput|^ +shards +[0-9]+$' "$1"; }
if ! diff <(counters "$WORK/ref/summary.txt") <(counters "$OUT/summary.txt") >"$WORK/summary.diff"; then
  cat "$WORK/summary.diff" >&2
  die "the sharded summary's counters differ from the unsharded scan's (diff above)"
fi
# The per-file records too, less their timings.
records() {
  grep -h '"schema":"ilkit-scan-record/1"' "$@" | sed -E 's/"seconds":[-+0-9.eE]+,?//' | sort
}
if ! diff <(records "$WORK/ref/all.jsonl") <(records "$OUT"/part-*.jsonl) >"$WORK/records.diff"; then
  head -n 20 "$WORK/records.diff" >&2
  die "the shards' per-file records differ from the unsharded scan's"
fi

echo "--- merged summary ($OUT/summary.txt)"
cat "$OUT/summary.txt"
nrec=$(records "$WORK/ref/all.jsonl" | wc -l)
echo "slurm-local: PASS: $N-task array (ids $ARRAY_FIRST-$((ARRAY_FIRST + N - 1))) + merge on one-node Slurm $(slurmd -V | awk '{print $2}'): $nrec files, counters and per-file records equal to the unsharded scan (merge exit $merge_rc), $((SECONDS - T0))s"
