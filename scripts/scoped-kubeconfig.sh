#!/usr/bin/env bash
# Least-privilege credentials for the kubernetes executor.
#   scripts/scoped-kubeconfig.sh ADMIN_KUBECONFIG NAMESPACE OUT [NAME] [TTL]
# Makes a ServiceAccount, a namespaced Role (jobs, pods, pods/log, pods/exec, events,
# networkpolicies; no secrets, nothing cluster-wide) and a RoleBinding in NAMESPACE, and writes a
# kubeconfig with a token valid for TTL (default 24h) to OUT, mode 0600.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,6p' "$0" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
exec "$root/bin/knotless-run" kubernetes credentials --kubeconfig "$1" --namespace "$2" --out "$3" \
  --name "${4:-knotless-runner}" --ttl "${5:-24h}"
