#!/usr/bin/env bash
# Sets up this machine for benchdash: system packages, .venv, the store (PostgreSQL) and the
# broker (Redis), migrations and the presets. Safe to run again: each step skips what is done.
#   deploy/setup.sh            everything
#   deploy/setup.sh services   only start PostgreSQL and Redis
#   deploy/setup.sh stop       stop the PostgreSQL and Redis that this script started
#   deploy/setup.sh secure     give a running store or Redis that an older set-up left open its password now
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source deploy/lib.sh

step="${1:-all}"
case "$step" in
  all)
    ensure_packages
    ensure_run_user
    ensure_cluster_sudo_rule
    ensure_venv
    ensure_store
    ensure_broker
    prepare_app
    ;;
  services) ensure_run_user; ensure_store; ensure_broker ;;
  stop) stop_services ;;
  secure) ensure_run_user; SECURE_NOW=1 ensure_store; SECURE_NOW=1 ensure_broker ;;
  *) die "unknown step '$step' (all, services, stop, secure)" ;;
esac
