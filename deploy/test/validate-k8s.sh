#!/usr/bin/env bash
# Validates deploy/k8s-indexed-job.yaml offline against the Kubernetes API schemas, with
# kubernetes-validate (from PyPI; it ships the schemas of each Kubernetes release, 1.25 on),
# installed into a venv in a temporary folder that is removed on exit.
#
#   bash deploy/test/validate-k8s.sh [MANIFEST...]
#
# K8S_VERSIONS="1.25.0 1.30.0 1.37.0"  the Kubernetes versions to validate against
# CHECKER=kubernetes-validate==1.37.0  the pip requirement of the checker
# PYTHON=python3                       the interpreter that makes the venv
#
# Checks, failing on any error: each manifest in strict mode (an unknown field is an error)
# against each version; the Pod given to `kubectl run --overrides` in the manifest's header
# comment, the same way; and what the schemas cannot say about an ilkit shard Job:
# completionMode Indexed, `--shard-count` equal to completions, parallelism at most
# completions, restartPolicy Never or OnFailure, every volumeMount naming a volume.
# Needs PyPI (and, where `python3 -m venv` is missing, Debian's python3-venv and root).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ $# -gt 0 ]]; then MANIFESTS=("$@"); else MANIFESTS=("$REPO/deploy/k8s-indexed-job.yaml"); fi
K8S_VERSIONS=${K8S_VERSIONS:-1.25.0 1.30.0 1.37.0}
CHECKER=${CHECKER:-kubernetes-validate==1.37.0}
PYTHON=${PYTHON:-python3}
T0=$SECONDS
die() {
  echo "validate-k8s: FAIL: $*" >&2
  exit 1
}
for m in "${MANIFESTS[@]}"; do [[ -r $m ]] || die "cannot read $m"; done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$PYTHON" -m venv "$TMP/venv" >/dev/null 2>&1; then
  # Debian's python3 makes venvs only with python3-venv installed.
  [[ $EUID -eq 0 ]] || die "$PYTHON -m venv failed; install python3-venv (needs root)"
  rm -rf "$TMP/venv"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null 2>&1 || {
    apt-get update -q >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null
  } || die "apt-get install python3-venv failed"
  PYTHON=/usr/bin/python3
  "$PYTHON" -m venv "$TMP/venv" || die "$PYTHON -m venv failed"
fi
"$TMP/venv/bin/pip" install -q --disable-pip-version-check "$CHECKER" ||
  die "pip install $CHECKER failed"
KV=$TMP/venv/bin/kubernetes-validate
echo "validate-k8s: kubernetes-validate $("$KV" --version) in a venv ($((SECONDS - T0))s to install)"

# The Pod that the header comment's `kubectl run --overrides='{...}'` merges in.
"$TMP/venv/bin/python" - "$TMP" "${MANIFESTS[@]}" <<'EOF'
import json, re, sys
tmp, manifests = sys.argv[1], sys.argv[2:]
for i, m in enumerate(manifests):
    text = open(m).read()
    for j, o in enumerate(re.findall(r"--overrides='(\{.*?\})'", text)):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "overrides"}}
        pod.update(json.loads(o))
        out = f"{tmp}/overrides-{i}-{j}.json"
        json.dump(pod, open(out, "w"))
        print(f"validate-k8s: {m}: the --overrides Pod of its comment -> {out}")
EOF
shopt -s nullglob
PODS=("$TMP"/overrides-*.json)

fail=0
for v in $K8S_VERSIONS; do
  # Exit 1: a resource did not validate; 2: it could not be validated (no schema, bad YAML).
  if ! "$KV" --strict -k "$v" "${MANIFESTS[@]}" ${PODS[@]+"${PODS[@]}"}; then
    echo "validate-k8s: errors against Kubernetes $v (above)" >&2
    fail=1
  fi
done

# What the schemas do not say: enum values and how the fields relate.
"$TMP/venv/bin/python" - "${MANIFESTS[@]}" <<'EOF' || fail=1
import re, sys, yaml
errors = []
for m in sys.argv[1:]:
    for doc in yaml.safe_load_all(open(m)):
        if not doc or doc.get("kind") != "Job":
            continue
        name = f"{m}: job/{doc['metadata']['name']}"
        spec = doc["spec"]
        pod = spec["template"]["spec"]
        cmd = " ".join(" ".join(c.get("command", []) + c.get("args", []))
                       for c in pod.get("containers", []))
        if "--shard auto" not in cmd:
            continue
        if spec.get("completionMode") != "Indexed":
            errors.append(f"{name}: completionMode is {spec.get('completionMode')!r}, not 'Indexed' (no JOB_COMPLETION_INDEX)")
        completions = spec.get("completions")
        if not isinstance(completions, int):
            errors.append(f"{name}: completions {completions!r} is not a number")
            continue
        counts = re.findall(r"--shard-count[ =](\d+)", cmd)
        if not counts:
            errors.append(f"{name}: `--shard auto` without --shard-count (Kubernetes does not pass the count)")
        for n in counts:
            if int(n) != completions:
                errors.append(f"{name}: --shard-count {n} but completions {completions}: shards would be lost or overlap")
        if spec.get("parallelism", 1) > (completions or 0):
            errors.append(f"{name}: parallelism {spec.get('parallelism')} > completions {completions}")
        if pod.get("restartPolicy") not in ("Never", "OnFailure"):
            errors.append(f"{name}: restartPolicy {pod.get('restartPolicy')!r}: a Job's pods need Never or OnFailure")
        volumes = {v["name"] for v in pod.get("volumes", [])}
        for c in pod.get("containers", []):
            for vm in c.get("volumeMounts", []):
                if vm["name"] not in volumes:
                    errors.append(f"{name}: container {c['name']} mounts {vm['name']!r}, which is no volume")
        print(f"validate-k8s: {name}: Indexed, --shard-count {', '.join(counts) or '-'} = completions {completions}, parallelism {spec.get('parallelism')}, mounts resolve")
for e in errors:
    print(f"ERROR {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF

((fail == 0)) || die "${MANIFESTS[*]} is not valid (see the errors above)"
echo "validate-k8s: PASS: ${MANIFESTS[*]##*/} valid (strict) against Kubernetes ${K8S_VERSIONS// /, }, with the comment's --overrides Pod; $((SECONDS - T0))s"
