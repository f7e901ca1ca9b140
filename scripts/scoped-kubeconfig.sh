#!/usr/bin/env bash
# Least-privilege credentials for the kubernetes executor.
#   scripts/scoped-kubeconfig.sh ADMIN_KUBECONFIG NAMESPACE OUT [NAME] [TTL] [--read-nodes]
# Makes a ServiceAccount, a namespaced Role (only the verbs the runner uses on jobs, pods,
# pods/exec, events and networkpolicies; no secrets, nothing cluster-wide) and a RoleBinding in
# NAMESPACE, and writes a kubeconfig with a token valid for TTL (default 24h) to OUT, mode 0600.
# --read-nodes also binds a ClusterRole listing nodes and pods (free capacity in unschedulable reasons).
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
exec "$root/bin/knotless-run" kubernetes credentials --kubeconfig "$1" --namespace "$2" --out "$3" \
  --name "${4:-knotless-runner}" --ttl "${5:-24h}" "${@:6}"
