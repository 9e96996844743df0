#!/usr/bin/env bash
# Sets up this machine for benchdash: system packages, .venv, the store (PostgreSQL) and the
# broker (Redis), migrations and the presets. Safe to run again: each step skips what is done.
#   deploy/setup.sh            everything
#   deploy/setup.sh services   only start PostgreSQL and Redis
#   deploy/setup.sh stop       stop the PostgreSQL and Redis that this script started
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source deploy/lib.sh

step="${1:-all}"
case "$step" in
  all)
    ensure_packages
    ensure_run_user
    ensure_venv
    ensure_store
    ensure_broker
    prepare_app
    ;;
  services) ensure_run_user; ensure_store; ensure_broker ;;
  stop) stop_services ;;
  *) die "unknown step '$step' (all, services, stop)" ;;
esac
