#!/usr/bin/env bash
# as-run-user.sh COMMAND...: run COMMAND as the unprivileged run user (deploy/lib.sh's RUN_USER) when started as
# root, as `make run` may be; as it is otherwise. deploy/Procfile starts the web server, the worker and beat
# through it, as the systemd units do with User=: nothing benchdash serves runs as root.
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=deploy/lib.sh
source "$ROOT/deploy/lib.sh"
[ "$(id -u)" -eq 0 ] || exec "$@"
# A .venv made from a Python under /root (pyenv) cannot run as anyone else: say so, loudly, rather than fail.
if ! runuser -u "$RUN_USER" -- "$ROOT/.venv/bin/python" -c '' 2>/dev/null; then
  echo "benchdash: WARNING: $RUN_USER cannot run .venv/bin/python ($(readlink -f "$ROOT/.venv/bin/python")):" \
    "running $(basename "$1") as root. Make .venv from a Python every account can run" \
    "(rm -rf .venv && /usr/bin/python3 -m venv .venv, then make run)." >&2
  exec "$@"
fi
# The worker reaches the clusters' account of `local` with sudo (deploy/lib.sh's rule), never runs them itself.
export BENCHDASH_LOCAL_USER="$CLUSTER_USER"
exec runuser -u "$RUN_USER" -- "$@"
